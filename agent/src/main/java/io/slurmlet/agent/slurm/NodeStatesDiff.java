package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.NodeWish;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node-states step's pure half, on the controller: from Slurm's node states as slurmctld shows
 * them to the lending phases' wishes. A lent node is resumed, but only where slurmlet's own drain
 * (a reason starting {@code slurmlet:}) holds it; a node drained by an admin or a health check is
 * never resumed, and its reason never replaced. Other nodes are drained with slurmlet's reason; a
 * drain lets running jobs finish, it kills none. Nodes that change together change in one
 * {@code scontrol update} (a host list), not one call a node.
 *
 * <p>A drained node that runs no job is handed back with {@code state=idle}, which slurmctld
 * schedules at once (measured on 22.05: 35-40 ms to a job, against 1.5-2 s for {@code resume});
 * one that still runs jobs (a reclaim taken back) with {@code state=resume}, which keeps them.
 * Slurm 24.11 keeps a drained node's reason after either (22.05 and 26.05 clear it): where a
 * resumed node still shows a drain reason of slurmlet's, it is replaced by {@link #LENT}
 * (system-tests/slurm/FINDINGS.md).
 */
public final class NodeStatesDiff {

    /** The reason a lent node shows where Slurm keeps the drain's reason after a resume (24.11). */
    public static final String LENT = "slurmlet: lent";

    private NodeStatesDiff() {}

    /** @param wishes each node's wish, by name; empty where this is not the controller */
    public record Wanted(Map<String, NodeWish> wishes) {
        public Wanted {
            wishes = Map.copyOf(wishes);
        }
    }

    public static Wanted desired(NodePlan plan) {
        return new Wanted(plan.nodeStates());
    }

    /** What slurmctld shows where {@code wanted} was applied: each node idle, or drained with its reason (for a preview without a report). */
    public static List<SlurmNodeState> assumed(Wanted wanted) {
        return new TreeMap<>(wanted.wishes())
                .entrySet().stream()
                        .map(w -> w.getValue() instanceof NodeWish.Drain d
                                ? new SlurmNodeState(w.getKey(), "IDLE+DRAIN", d.reason(), List.of())
                                : new SlurmNodeState(w.getKey(), "IDLE", "", List.of()))
                        .toList();
    }

    /** From what slurmctld shows ({@code seen}, every node it knows) to the wishes. Pure. */
    public static Diff diff(Wanted wanted, List<SlurmNodeState> seen) {
        if (wanted.wishes().isEmpty()) {
            return Diff.of(List.of(), "not the controller: no Slurm node states to keep here");
        }
        Map<String, SlurmNodeState> now = byName(seen);
        List<String> idle = new ArrayList<>();
        List<String> resume = new ArrayList<>();
        Map<String, List<String>> drain = new TreeMap<>();
        List<String> others = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        for (var wish : new TreeMap<>(wanted.wishes()).entrySet()) {
            SlurmNodeState s = now.get(wish.getKey());
            if (s == null) {
                continue; // not in slurmctld's node table yet: its slurm.conf line brings it, drained
            }
            if (s.drainedBySomeoneElse()) {
                others.add("%s (\"%s\")".formatted(s.name(), s.reason()));
            } else if (wish.getValue() instanceof NodeWish.Resume) {
                if (s.drained()) {
                    (s.jobs().isEmpty() && s.state().startsWith("IDLE") ? idle : resume).add(s.name());
                } else if (staleReason(s)) {
                    stale.add(s.name());
                }
            } else if (wish.getValue() instanceof NodeWish.Drain d) {
                if (!s.drained() || !s.reason().equals(d.reason())) {
                    drain.computeIfAbsent(d.reason(), r -> new ArrayList<>()).add(s.name());
                }
            }
        }
        List<Action> actions = new ArrayList<>();
        if (!idle.isEmpty()) {
            actions.add(new Idle(idle));
        }
        if (!resume.isEmpty()) {
            actions.add(new Resume(resume));
        }
        drain.forEach((reason, nodes) -> actions.add(new Drain(nodes, reason)));
        if (!stale.isEmpty()) {
            actions.add(new Relabel(stale));
        }
        String left = others.isEmpty() ? "" : "left drained by someone else: " + String.join(", ", others);
        Diff diff = Diff.of(actions, "every node's Slurm state as planned");
        return left.isEmpty() ? diff : diff.waitingFor(List.of(left));
    }

    /**
     * What is left once {@code did} is done, from what slurmctld shows then: the stale reasons of
     * the nodes just resumed, which Slurm 24.11 keeps.
     */
    static List<Action> afterResume(List<Action> did, List<SlurmNodeState> after) {
        Map<String, SlurmNodeState> now = byName(after);
        List<String> stale = new ArrayList<>();
        for (Action a : did) {
            List<String> resumed = a instanceof Idle i ? i.nodes() : a instanceof Resume r ? r.nodes() : List.of();
            for (String node : resumed) {
                SlurmNodeState s = now.get(node);
                if (s != null && staleReason(s)) {
                    stale.add(node);
                }
            }
        }
        return stale.isEmpty() ? List.of() : List.of(new Relabel(stale));
    }

    /** Not drained, yet still showing a drain reason of slurmlet's other than {@link #LENT}. */
    static boolean staleReason(SlurmNodeState s) {
        return !s.drained()
                && s.reason().startsWith(SlurmNodeState.OUR_PREFIX)
                && !s.reason().equals(LENT)
                && !s.state().contains("DOWN")
                && !s.state().contains("FAIL");
    }

    private static Map<String, SlurmNodeState> byName(List<SlurmNodeState> seen) {
        Map<String, SlurmNodeState> now = new LinkedHashMap<>();
        seen.forEach(s -> now.put(s.name(), s));
        return now;
    }

    /** An {@code scontrol update} of Slurm's node states. */
    public sealed interface Update extends Action permits Idle, Resume, Drain, Relabel {
        /** The nodes, as {@code scontrol} takes them. */
        List<String> nodes();

        /** What is set on them. */
        List<String> sets();
    }

    /** Drained nodes that run no job, handed back at once. */
    public record Idle(List<String> nodes) implements Update {
        public List<String> sets() {
            return List.of("state=idle");
        }

        public String will() {
            return "resume " + HostList.compress(nodes) + " in Slurm";
        }

        public String did() {
            return "resumed " + HostList.compress(nodes);
        }
    }

    /** Drained nodes that still run jobs (a reclaim taken back): resumed, their jobs kept. */
    public record Resume(List<String> nodes) implements Update {
        public List<String> sets() {
            return List.of("state=resume");
        }

        public String will() {
            return "resume " + HostList.compress(nodes) + " in Slurm, their jobs kept";
        }

        public String did() {
            return "resumed " + HostList.compress(nodes) + " (jobs kept)";
        }
    }

    public record Drain(List<String> nodes, String reason) implements Update {
        public List<String> sets() {
            return List.of("state=drain", "reason=" + reason);
        }

        public String will() {
            return "drain %s in Slurm (%s): running jobs finish".formatted(HostList.compress(nodes), reason);
        }

        public String did() {
            return "drained %s (%s)".formatted(HostList.compress(nodes), reason);
        }
    }

    /** Lent nodes whose drain reason this Slurm kept after their resume, shown as lent instead. */
    public record Relabel(List<String> nodes) implements Update {
        public List<String> sets() {
            return List.of("reason=" + LENT);
        }

        public String will() {
            return "show %s as \"%s\" in Slurm".formatted(HostList.compress(nodes), LENT);
        }

        public String did() {
            return "%s: the drain's reason, which this Slurm keeps after a resume, replaced by \"%s\""
                    .formatted(HostList.compress(nodes), LENT);
        }
    }
}
