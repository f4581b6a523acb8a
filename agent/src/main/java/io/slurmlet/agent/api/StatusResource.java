package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.SlurmStatus.NodeStatus;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.ClockSeen;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Slurm cluster as the leader sees it: the settings' nodes (with all_nodes, every machine that
 * reported), their roles, lending and Slurm version, and what the planner finds in the way.
 */
@Path("/v1/slurm/status")
@Produces(MediaType.APPLICATION_JSON)
public class StatusResource {

    @Inject
    SettingsStore store;

    @Inject
    Inventory inventory;

    @Inject
    NodeReports reports;

    @Inject
    LendingBook lending;

    @Inject
    PlanPublisher plans;

    @GET
    public SlurmStatus status() {
        // Read before the machines' plans: the book holds plans from at least this revision then (published, then
        // noted).
        long plannedFrom = this.plans.plannedFrom();
        SettingsDocument doc = store.current();
        Map<String, NodeFacts> facts = inventory.all();
        // The nodes leaving Slurm stay among its nodes, drained, until their reclaim ends.
        Set<String> underWay = lending.underWay();
        Set<String> known = lending.knownToSlurm();
        Set<String> leaving = Planner.leaving(doc.settings(), underWay, known, facts);
        SlurmSettings s =
                Planner.inSlurm(doc.settings(), leaving).withNodes(List.copyOf(new TreeSet<>(facts.keySet())));
        Set<String> names = new LinkedHashSet<>();
        if (!s.controller().isEmpty()) {
            names.add(s.controller());
        }
        names.addAll(s.nodes());
        Set<String> slurmd = Set.copyOf(s.nodes());
        Set<String> lent = new HashSet<>(
                doc.settings().withNodes(List.copyOf(facts.keySet())).lentNodes());
        lent.removeAll(leaving);
        List<NodeStatus> nodes = new ArrayList<>();
        for (String name : names) {
            List<String> roles = new ArrayList<>();
            if (name.equals(s.controller())) {
                roles.add("slurmctld");
            }
            if (slurmd.contains(name)) {
                roles.add("slurmd");
            }
            NodeFacts f = facts.get(name);
            var report = reports.get(name);
            nodes.add(new NodeStatus(
                    name,
                    roles,
                    lent.contains(name),
                    f == null ? "" : f.slurmVersion(),
                    report.map(r -> r.at().toString()).orElse(""),
                    report.map(r -> r.report().planRevision()).orElse(0L),
                    report.map(r -> r.report().steps()).orElse(List.of()),
                    f == null ? null : f.containers(),
                    f == null ? 0 : f.gpuCount(),
                    this.plans.book().get(name).map(p -> p.revision()).orElse(0L)));
        }
        Planner.Plans plans = Planner.review(
                doc.settings(),
                facts,
                Planner.Lent.asWished(doc.settings(), underWay, known, facts, lending.memoryClasses()));
        List<Problem> problems = new ArrayList<>(doc.settings().check());
        problems.addAll(plans.problems());
        return new SlurmStatus(
                doc.revision(),
                doc.settings().enabled(),
                s.clusterName(),
                s.controller(),
                s.partition(),
                nodes,
                problems,
                notes(plans.notes(), clockNotes(names, reports.observed())),
                plannedFrom);
    }

    /**
     * How far a Slurm machine's clock may be off the leader's, as its agent measured it, before
     * status says so: munge refuses a credential from a clock further off than its lifetime (300 s by
     * default), Slurm's own auth/slurm a token after 60 s, and job times and logs disagree long before.
     */
    static final long CLOCK_OFF_MS = 5_000;

    /** A sentence for each of {@code machines} whose measured clock is surely more than {@link #CLOCK_OFF_MS} off the leader's. */
    static List<String> clockNotes(Set<String> machines, Map<String, Observed> observed) {
        List<String> notes = new ArrayList<>();
        for (String name : new TreeSet<>(machines)) {
            ClockSeen clock =
                    Optional.ofNullable(observed.get(name)).map(Observed::clock).orElse(null);
            if (clock != null && Math.abs(clock.aheadMs()) - clock.errorMs() > CLOCK_OFF_MS) {
                notes.add(
                        ("%s's clock is %s, as its agent measured it: munge refuses credentials from clocks more than "
                                        + "its lifetime (300 s by default) apart, and Slurm's job times and logs disagree; sync "
                                        + "the machines' clocks (chrony, systemd-timesyncd)")
                                .formatted(name, clock.said()));
            }
        }
        return notes;
    }

    private static List<String> notes(List<String> planned, List<String> clocks) {
        if (clocks.isEmpty()) {
            return planned;
        }
        List<String> all = new ArrayList<>(planned);
        all.addAll(clocks);
        return all;
    }
}
