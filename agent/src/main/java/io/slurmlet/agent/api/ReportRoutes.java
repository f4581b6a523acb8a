package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.FactsLimit;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.FactsCheck;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a joined machine reports on the agents' channel: its facts ({@code PUT /v1/agent/facts}),
 * which the planner plans from, taken at most as often as {@code
 * slurmlet.leader.facts-change-interval} lets them change; and what its last reconcile pass did
 * ({@code PUT /v1/agent/status}), which status and ctl show. Each is stored under the name its
 * credential is for, and only while the machine still holds that credential.
 */
final class ReportRoutes {

    /** Longer would keep a machine's real change (Slurm upgraded) out of the plans too long. */
    private static final Duration LONGEST_FACTS_CHANGE_INTERVAL = Duration.ofHours(1);

    private final AgentAuth auth;
    private final Inventory inventory;
    private final NodeReports reports;
    private final LendingEngine lending;
    /** slurmlet.leader.facts-change-interval: how often a machine's facts may change. */
    private final FactsLimit factsLimit;

    ReportRoutes(AgentAuth auth, Inventory inventory, NodeReports reports, LendingEngine lending, FactsLimit limit) {
        this.auth = auth;
        this.inventory = inventory;
        this.reports = reports;
        this.lending = lending;
        this.factsLimit = limit;
    }

    void routes(Router router) {
        router.put("/v1/agent/facts").blockingHandler(this::facts, false);
        router.put("/v1/agent/status").handler(this::status);
    }

    static FactsLimit factsLimit(Duration interval) {
        if (interval.isNegative() || interval.compareTo(LONGEST_FACTS_CHANGE_INTERVAL) > 0) {
            throw new IllegalStateException(
                    ("slurmlet.leader.facts-change-interval is %d s: give how often a machine's facts may "
                                    + "change, 0s to 1h (10s, the default, takes 3 changes at once, then one every 10 s; 0s takes every change)")
                            .formatted(interval.toSeconds()));
        }
        return new FactsLimit(interval);
    }

    private void facts(RoutingContext ctx) {
        String node = AgentAuth.node(ctx);
        NodeFacts reported = SettingsJson.read(ChannelAnswers.bytes(ctx), NodeFacts.class);
        List<Problem> problems = FactsCheck.problems(node, reported);
        if (!problems.isEmpty()) {
            ChannelAnswers.error(ctx, 400, refusal(problems));
            return;
        }
        try {
            Inventory.Stored stored = inventory.report(named(node, reported), auth.stillJoined(ctx), factsLimit);
            if (stored == Inventory.Stored.REFUSED) {
                AgentAuth.removedMeanwhile(ctx, "facts report");
                return;
            }
            if (stored == Inventory.Stored.LIMITED) {
                changingTooOften(ctx, node);
                return;
            }
            ChannelAnswers.json(ctx, 200, Map.of("node", node, "changed", stored == Inventory.Stored.CHANGED));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * 429 to a report that would change its machine's facts sooner than {@link #factsLimit} takes:
     * nothing of it kept; Retry-After says when its agent reports again, with its facts as they are then.
     */
    private void changingTooOften(RoutingContext ctx, String node) {
        Duration wait = factsLimit.refused(node);
        ctx.response().putHeader("Retry-After", Long.toString(FactsLimit.seconds(wait)));
        ChannelAnswers.error(
                ctx,
                429,
                new ApiError(
                        ("%s's facts change more often than the leader takes them (%d changes at once, then one every "
                                        + "%s: slurmlet.leader.facts-change-interval): this report was not stored, and this machine reports its facts again "
                                        + "after Retry-After. If they keep changing, something on %s changes what it reports (its address, a package) back "
                                        + "and forth: a machine's facts change only when it is set up or changed")
                                .formatted(node, FactsLimit.BURST, factsLimit.every(), node),
                        List.of(new Problem(
                                "facts",
                                node,
                                "changed more often than one every %s after %d at once"
                                        .formatted(factsLimit.every(), FactsLimit.BURST))),
                        null));
    }

    private void status(RoutingContext ctx) {
        String node = AgentAuth.node(ctx);
        NodeReport report = SettingsJson.read(ChannelAnswers.bytes(ctx), NodeReport.class);
        // What a machine reports is shown by ctl and logged: each text one line, as a terminal shows it.
        boolean kept = reports.put(
                new NodeReport(
                        node,
                        report.planRevision(),
                        report.steps().stream()
                                .map(st -> new StepStatus(
                                        Text.oneLine(st.step()),
                                        Text.oneLine(st.state()),
                                        Text.oneLine(st.detail()),
                                        Text.oneLine(st.at()),
                                        Text.oneLine(st.lastError()),
                                        Text.oneLine(st.lastErrorAt())))
                                .toList(),
                        report.slurmNodes().stream()
                                .map(n -> new SlurmNodeState(
                                        Text.oneLine(n.name()),
                                        Text.oneLine(n.state()),
                                        Text.oneLine(n.reason()),
                                        n.jobs().stream().map(Text::oneLine).toList()))
                                .toList(),
                        report.observed()),
                auth.stillJoined(ctx));
        if (!kept) {
            AgentAuth.removedMeanwhile(ctx, "status report");
            return;
        }
        if (!report.slurmNodes().isEmpty()) {
            lending.wake();
        }
        // As late as can be: the agent takes the leader's clock to be this at the middle of its round trip.
        ctx.response().putHeader(LeaderChannel.LEADER_TIME, Long.toString(System.currentTimeMillis()));
        ChannelAnswers.json(ctx, 200, Map.of("node", node));
    }

    private static ApiError refusal(List<Problem> problems) {
        return new ApiError(
                "the facts were not stored: %d problem%s".formatted(problems.size(), problems.size() == 1 ? "" : "s"),
                problems,
                null);
    }

    /** {@code reported} under the name of the machine that sent it. */
    private static NodeFacts named(String node, NodeFacts reported) {
        return reported.withName(node);
    }
}
