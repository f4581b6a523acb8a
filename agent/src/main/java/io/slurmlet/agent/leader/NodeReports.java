package io.slurmlet.agent.leader;

import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The last reconcile pass each agent posted, and when, with each step's last error kept across the
 * agent's restarts (an agent forgets its own when it restarts). Kept in memory: every agent posts
 * again after its next pass, so a restarted leader knows its machines again within a minute.
 */
public final class NodeReports {

    /** A report as received. */
    public record Received(NodeReport report, Instant at) {}

    private final Map<String, Received> reports = new ConcurrentHashMap<>();

    public void put(NodeReport report) {
        put(report, () -> true);
    }

    /**
     * Keeps {@code report} if {@code stillJoined} says, when asked, that its sender still holds its
     * credential; says whether it was kept. It is asked under the lock of the machine's entry, which
     * {@link #forget} takes too: a removal revokes the credential and then forgets the report, so a
     * report checked before the removal and kept after it cannot be.
     */
    public boolean put(NodeReport report, BooleanSupplier stillJoined) {
        Received now = new Received(report, Instant.now());
        boolean[] kept = {false};
        reports.compute(report.node(), (node, before) -> {
            if (!stillJoined.getAsBoolean()) {
                return before;
            }
            kept[0] = true;
            return before == null ? now : merged(before, now);
        });
        return kept[0];
    }

    /** {@code now}, each step's last error kept from {@code before} where {@code now} has none. */
    private static Received merged(Received before, Received now) {
        Map<String, StepStatus> old = new HashMap<>();
        before.report().steps().forEach(st -> old.put(st.step(), st));
        List<StepStatus> steps = new ArrayList<>();
        for (StepStatus st : now.report().steps()) {
            StepStatus was = old.get(st.step());
            steps.add(
                    st.lastError().isEmpty() && was != null && !was.lastError().isEmpty()
                            ? new StepStatus(
                                    st.step(), st.state(), st.detail(), st.at(), was.lastError(), was.lastErrorAt())
                            : st);
        }
        return new Received(
                new NodeReport(
                        now.report().node(),
                        now.report().planRevision(),
                        steps,
                        now.report().slurmNodes(),
                        now.report().observed()),
                now.at());
    }

    /**
     * The jobs the controller's agent last reported on each Slurm node it listed, each once, in its
     * order: read once for a look at every node (a look per node through
     * {@link #jobsReportedBy(String, java.util.function.Predicate)} reads the whole report each time).
     */
    public Map<String, List<String>> jobsReportedByNode(String controller) {
        if (controller == null) {
            return Map.of();
        }
        Map<String, LinkedHashSet<String>> byNode = new HashMap<>();
        get(controller).stream()
                .flatMap(r -> r.report().slurmNodes().stream())
                .forEach(n -> byNode.computeIfAbsent(n.name(), k -> new LinkedHashSet<>())
                        .addAll(n.jobs()));
        Map<String, List<String>> jobs = new HashMap<>();
        byNode.forEach((node, ids) -> jobs.put(node, List.copyOf(ids)));
        return jobs;
    }

    /**
     * The jobs the controller's agent last reported on the Slurm nodes {@code onNode} takes, each
     * once; none when there is no controller or no report from it.
     */
    public List<String> jobsReportedBy(String controller, Predicate<String> onNode) {
        if (controller == null) {
            return List.of();
        }
        return get(controller).stream()
                .flatMap(r -> r.report().slurmNodes().stream())
                .filter(n -> onNode.test(n.name()))
                .map(SlurmNodeState::jobs)
                .flatMap(List::stream)
                .distinct()
                .toList();
    }

    /**
     * The jobs that run, as the freshest word on each has it: every job the controller's agent last
     * listed ("12 of alice"), and each job a machine's agent saw running there ("14") where that
     * machine reported after the controller did (a job that started since). A machine's job the
     * controller listed no more in a later report has ended.
     */
    public List<String> jobsRunning(String controller) {
        List<String> jobs = new ArrayList<>(jobsReportedBy(controller, node -> true));
        Instant controllerAt = controller == null
                ? Instant.MIN
                : get(controller).map(Received::at).orElse(Instant.MIN);
        Set<String> ids = new HashSet<>(jobs.stream().map(j -> j.split(" ")[0]).toList());
        new TreeMap<>(reports).forEach((node, r) -> {
            if (r.at().isAfter(controllerAt)) {
                r.report().observed().jobs().stream().filter(ids::add).forEach(jobs::add);
            }
        });
        return jobs;
    }

    /** The jobs {@code controller}'s slurmctld held queued (not started) at its agent's last look; none where it has not said. */
    public List<QueuedJob> jobsQueued(String controller) {
        if (controller == null) {
            return List.of();
        }
        return get(controller)
                .map(r -> r.report().observed().queued())
                .filter(Objects::nonNull)
                .orElse(List.of());
    }

    /** The nodes {@code controller}'s agent last showed slurmctld holding a record of. */
    public Set<String> slurmNodesReportedBy(String controller) {
        Set<String> nodes = new TreeSet<>();
        get(controller).ifPresent(r -> r.report().slurmNodes().forEach(n -> nodes.add(n.name())));
        return nodes;
    }

    /** Forgets what {@code node} last reported (a machine removed). */
    public void forget(String node) {
        reports.remove(node);
    }

    /** The Slurm nodes each controller's agent last showed, by the machine that showed them: what a dry run of node states diffs against. */
    public Map<String, List<SlurmNodeState>> slurmNodes() {
        Map<String, List<SlurmNodeState>> shown = new TreeMap<>();
        reports.forEach((node, r) -> {
            if (!r.report().slurmNodes().isEmpty()) {
                shown.put(node, r.report().slurmNodes());
            }
        });
        return shown;
    }

    /** What each machine's steps last saw of it, by name: what a dry run diffs against. */
    public Map<String, Observed> observed() {
        Map<String, Observed> seen = new TreeMap<>();
        reports.forEach((node, r) -> seen.put(node, r.report().observed()));
        return seen;
    }

    public Optional<Received> get(String node) {
        return Optional.ofNullable(reports.get(node));
    }
}
