package io.slurmlet.agent.steps;

import io.slurmlet.agent.containers.ContainersPreview;
import io.slurmlet.agent.munge.MungeDiff;
import io.slurmlet.agent.packages.PackagesDiff;
import io.slurmlet.agent.pam.PamDiff;
import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.slurm.NodeStatesDiff;
import io.slurmlet.agent.slurm.SlurmDiff;
import io.slurmlet.agent.slurm.SlurmReport;
import io.slurmlet.agent.storage.StorageDiff;
import io.slurmlet.agent.users.UsersDiff;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.UsersPlan;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The node's steps, declared once as the Java Operator SDK declares a workflow's dependents: each
 * with the steps it runs after and what it waits for before it acts (ready-when), in the order a pass
 * runs them. The node's runner runs its steps in this order ({@link #inOrder}); the leader's preview
 * walks the same nodes ({@link #preview}), each node's dry run taking the machine as the steps
 * before it leave it. A step never stops the ones after it: what it waits for, its own diff waits
 * for (and says so), and the next pass looks again.
 */
public final class StepGraph {

    private StepGraph() {}

    /**
     * What a dry run knows of one machine.
     *
     * @param before     the plan it holds now
     * @param after      the plan the change would give it
     * @param seen       what its agent last reported of it; {@link Observed#NOTHING} where it has not
     * @param slurmNodes what it showed of slurmctld's node table; null where it showed none
     * @param facts      its facts; null where it has not reported
     * @param artifacts  the pinned files of jobs in containers, as the plans carry them
     */
    public record Machine(
            NodePlan before,
            NodePlan after,
            Observed seen,
            List<SlurmNodeState> slurmNodes,
            NodeFacts facts,
            List<Artifact> artifacts) {
        public Machine {
            artifacts = List.copyOf(artifacts);
        }
    }

    /**
     * One step of the graph.
     *
     * @param name      the step's name, as status, health and ctl show it
     * @param after     the steps whose work it needs done first
     * @param readyWhen what it waits for before it acts, in words ("" for nothing but those steps)
     * @param preview   its diff on a machine as the steps before it in a pass leave it: what a dry run shows
     */
    public record Node(String name, List<String> after, String readyWhen, Function<Machine, Diff> preview) {
        public Node {
            after = List.copyOf(after);
        }
    }

    /** Every step, in the order a pass runs them; each after the steps it names. */
    public static final List<Node> NODES = checked(List.of(
            new Node("packages", List.of(), "", StepGraph::packages),
            new Node("munge", List.of("packages"), "munge installed", StepGraph::munge),
            new Node(
                    "storage",
                    List.of("packages"),
                    "no job running here uses a mount it changes (the machine's jobs, looked at again before each change)",
                    StepGraph::storage),
            new Node(
                    "users",
                    List.of("storage"),
                    "the shared storage mounted, where the homes are when they are on it (PATH/home)",
                    StepGraph::users),
            new Node(
                    "slurm",
                    List.of("packages", "munge", "storage"),
                    "every plugin its plugstack.conf names installed here (the leader names pyxis only once every "
                            + "Slurm machine's facts report the pyxis its containers step built); no restart while a "
                            + "job launches",
                    StepGraph::slurm),
            new Node(
                    "pam",
                    List.of("slurm"),
                    "slurmd runs the plan's slurm.conf (PrologFlags=Contain): before, every user would be refused",
                    StepGraph::pam),
            new Node(
                    "containers",
                    List.of("packages"),
                    "Slurm and its headers installed (the packages step), for pyxis to be built against",
                    m -> ContainersPreview.diff(
                            m.before(), m.after(), m.seen().containers(), m.facts(), m.artifacts())),
            new Node(
                    "nodestates",
                    List.of("slurm"),
                    "slurmctld runs the plan's slurm.conf (the controller only)",
                    StepGraph::nodeStates)));

    /** {@code nodes}, once every step is named once and runs after only the steps before it. */
    static List<Node> checked(List<Node> nodes) {
        Set<String> before = new HashSet<>();
        for (Node n : nodes) {
            if (!before.containsAll(n.after()) || n.after().contains(n.name())) {
                throw new IllegalStateException("%s runs after %s, not all of which come before it (%s)"
                        .formatted(n.name(), n.after(), before));
            }
            if (!before.add(n.name())) {
                throw new IllegalStateException(n.name() + " is in the graph twice");
            }
        }
        return nodes;
    }

    /** The graph's step names, in order. */
    public static List<String> names() {
        return NODES.stream().map(Node::name).toList();
    }

    /**
     * {@code steps} in the graph's order: each name of the graph once, none other.
     *
     * @throws IllegalArgumentException where they are not the graph's steps
     */
    public static List<Step> inOrder(List<? extends Step> steps) {
        Map<String, Step> byName = steps.stream().collect(Collectors.toMap(Step::name, s -> s, (a, b) -> {
            throw new IllegalArgumentException("two steps named " + a.name());
        }));
        if (!byName.keySet().equals(Set.copyOf(names()))) {
            throw new IllegalArgumentException(
                    "the steps %s are not the graph's %s".formatted(byName.keySet(), names()));
        }
        return names().stream().map(byName::get).toList();
    }

    /** Every step's dry run on one machine, walking the graph: the diffs in the order a pass does them. */
    public static List<Diff> preview(Machine m) {
        List<Diff> diffs = new ArrayList<>();
        for (Node n : NODES) {
            diffs.add(n.preview().apply(m));
        }
        return diffs;
    }

    private static Diff packages(Machine m) {
        var seen = m.seen().packages();
        return PackagesDiff.diff(
                PackagesDiff.desired(m.after()),
                seen != null ? seen : PackagesDiff.assumed(PackagesDiff.desired(m.before())));
    }

    private static Diff munge(Machine m) {
        var seen = m.seen().munge();
        return MungeDiff.diff(
                MungeDiff.desired(m.after()), seen != null ? seen : MungeDiff.assumed(MungeDiff.desired(m.before())));
    }

    /** Ready when no job runs on a mount it changes: the jobs the machine reported, fresher than its last pass. */
    private static Diff storage(Machine m) {
        var seen = m.seen().storage();
        return StorageDiff.diff(
                StorageDiff.desired(m.after()),
                (seen != null ? seen : StorageDiff.assumed(StorageDiff.desired(m.before())))
                        .withJobs(m.seen().jobs()));
    }

    /** What a change of who keeps the machine's users means, said first; then the users step's own actions. */
    private static Diff users(Machine m) {
        var seen = m.seen().users();
        Diff diff = UsersDiff.diff(
                UsersDiff.desired(m.after()), seen != null ? seen : UsersDiff.assumed(UsersDiff.desired(m.before())));
        List<Action> actions = new ArrayList<>(keepingUsers(m.before(), m.after()));
        actions.addAll(diff.actions());
        return new Diff(actions, diff.settled(), diff.blocked(), diff.waiting());
    }

    /** What a change of who keeps the machine's users means, from the plans' own sections: a sentence, or none. */
    public static List<Action> keepingUsers(NodePlan before, NodePlan after) {
        boolean kept = before.users() instanceof UsersPlan.Keep;
        if (!kept && after.users() instanceof UsersPlan.Keep keep) {
            return List.of(Action.sentence(
                    "keep the cluster's accounts as Linux users here, their homes in " + keep.homeRoot()));
        } else if (kept && !(after.users() instanceof UsersPlan.Keep)) {
            return List.of(Action.sentence("stop keeping the accounts' users: they and their files stay as they are"));
        }
        return List.of();
    }

    /**
     * The slurm step's diff against what the machine reported of Slurm's files (their digests, the
     * daemons, what they are owed); a file that holds neither plan's content is said so first.
     */
    static Diff slurm(Machine m) {
        SlurmDiff.Wanted was = SlurmDiff.desired(m.before());
        SlurmDiff.Wanted will = SlurmDiff.desired(m.after());
        if (m.seen().slurm() == null) {
            return SlurmDiff.diff(will, SlurmReport.assumed(was, will));
        }
        SlurmReport.Reported reported = SlurmReport.fromReport(m.seen().slurm(), was, will);
        Diff diff = SlurmDiff.diff(will, reported.seen());
        if (reported.unknown().isEmpty()) {
            return diff;
        }
        List<Action> actions = new ArrayList<>();
        actions.add(Action.sentence(
                ("%s: not what this machine's plan holds (an earlier plan, a change by hand, or a write that failed): "
                                + "written whole; its diff and what the daemons do for it are shown against the plan it had, if it had one")
                        .formatted(String.join(", ", reported.unknown()))));
        actions.addAll(diff.actions());
        return new Diff(actions, diff.settled(), diff.blocked(), diff.waiting());
    }

    /** Ready when slurmd runs the plan's slurm.conf: the slurm step before it in the same pass sees to that. */
    private static Diff pam(Machine m) {
        PamDiff.Wanted pam = PamDiff.desired(m.after(), PamDiff.DEFAULT_BACKUP);
        var seen = m.seen().pam() != null
                ? m.seen().pam()
                : PamDiff.assumed(PamDiff.desired(m.before(), PamDiff.DEFAULT_BACKUP));
        return PamDiff.diff(pam, PamDiff.afterSlurm(seen, pam, m.after().slurm().runs("slurmd")));
    }

    /** Slurm's node states as the controller showed them, or as its current plan has them. */
    private static Diff nodeStates(Machine m) {
        return NodeStatesDiff.diff(
                NodeStatesDiff.desired(m.after()),
                m.slurmNodes() != null ? m.slurmNodes() : NodeStatesDiff.assumed(NodeStatesDiff.desired(m.before())));
    }
}
