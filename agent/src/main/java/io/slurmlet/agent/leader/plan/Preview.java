package io.slurmlet.agent.leader.plan;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.steps.StepGraph;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a change of the settings would do on each machine, before anything is stored: every step's
 * own diff, walking the node's {@link StepGraph} (packages, munge, storage, users, slurm, PAM,
 * containers, node states, in the order an agent's pass runs them) of what the plan it would get
 * wants against what the machine holds. What it holds is what its agent last reported of it
 * ({@link Observed}: packages, munge, storage, users, PAM, containers, the jobs running there,
 * Slurm's files by their digests); a step that has not reported is taken to hold the machine's
 * current plan. So a preview lists what the agents will do, from the same
 * functions they act on.
 * The munge key is never in it: the plans are made without it. Pure.
 */
public final class Preview {

    /** Lines of context around each change, as {@code diff -u} and {@code git diff} print. */
    static final int CONTEXT = FileDiffs.CONTEXT;

    private Preview() {}

    /**
     * The cluster as the leader knows it, which a preview runs against.
     *
     * @param inventory  every machine with an agent, by name, with its facts
     * @param observed   what each machine's agent last reported of it, by name
     * @param slurmNodes every Slurm node as slurmctld showed it, by the machine whose agent showed it (the controller)
     * @param underWay   the nodes whose lending is under way (being lent, lent, being reclaimed): a
     *                   change that takes one out of Slurm keeps it there until its reclaim ends
     * @param known      the nodes slurmctld has a record of (their drains are kept at run time, not in slurm.conf)
     * @param accounts   the cluster's accounts (with users = "slurmlet", each a user on every Slurm machine)
     * @param memoryClasses the memory classes slurm.conf had partitions for, which stay
     */
    public record Cluster(
            Map<String, NodeFacts> inventory,
            Map<String, Observed> observed,
            Map<String, List<SlurmNodeState>> slurmNodes,
            Set<String> underWay,
            Set<String> known,
            List<Account> accounts,
            Set<Long> memoryClasses,
            List<Artifact> artifacts) {

        /** @param artifacts the pinned files of jobs in containers, as the plans carry them */
        public Cluster {
            artifacts = List.copyOf(artifacts);
        }

        /**
         * These machines and what their agents reported, nothing else known: no Slurm node shown, no
         * lending under way, no account, memory class or pinned file; each {@code with…} sets one.
         */
        public static Cluster of(Map<String, NodeFacts> inventory, Map<String, Observed> observed) {
            return new Cluster(inventory, observed, Map.of(), Set.of(), Set.of(), List.of(), Set.of(), List.of());
        }

        public Cluster withSlurmNodes(Map<String, List<SlurmNodeState>> slurmNodes) {
            return new Cluster(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, artifacts);
        }

        public Cluster withUnderWay(Set<String> underWay) {
            return new Cluster(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, artifacts);
        }

        public Cluster withKnown(Set<String> known) {
            return new Cluster(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, artifacts);
        }

        public Cluster withAccounts(List<Account> accounts) {
            return new Cluster(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, artifacts);
        }

        public Cluster withMemoryClasses(Set<Long> memoryClasses) {
            return new Cluster(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, artifacts);
        }

        public Cluster withArtifacts(List<Artifact> artifacts) {
            return new Cluster(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, artifacts);
        }
    }

    public static SettingsPreview of(SettingsDocument current, SlurmSettings next, Cluster cluster) {
        var inventory = cluster.inventory();
        Planner.Plans was = Planner.review(
                current.settings(),
                inventory,
                Planner.Lent.asWished(
                        current.settings(), cluster.underWay(), cluster.known(), inventory, cluster.memoryClasses()),
                cluster.accounts());
        Planner.Plans will = Planner.review(
                next,
                inventory,
                Planner.Lent.asWished(next, cluster.underWay(), cluster.known(), inventory, cluster.memoryClasses()),
                cluster.accounts());
        FileDiffs diffs = new FileDiffs();
        List<NodeChange> nodes = new ArrayList<>();
        for (NodePlan after : will.nodes().values()) {
            NodePlan before = was.nodes().get(after.node());
            NodeChange change = node(
                    new StepGraph.Machine(
                            before,
                            after,
                            cluster.observed().getOrDefault(after.node(), Observed.NOTHING),
                            cluster.slurmNodes().get(after.node()),
                            inventory.get(after.node()),
                            cluster.artifacts()),
                    diffs);
            if (!change.rolesBefore().equals(change.rolesAfter())
                    || !change.files().isEmpty()
                    || !change.daemons().isEmpty()
                    || !change.actions().isEmpty()) {
                nodes.add(change);
            }
        }
        return new SettingsPreview(
                current.revision(), !next.equals(current.settings()), next, nodes, will.problems(), will.notes());
    }

    /** Every step's diff on one machine, as an agent's pass runs them (node states as its plan had them). */
    static List<Diff> diffs(NodePlan before, NodePlan after, Observed seen) {
        return diffs(before, after, seen, null);
    }

    /** @param slurmNodes what the machine's agent showed of slurmctld's node table; null where it showed none */
    static List<Diff> diffs(NodePlan before, NodePlan after, Observed seen, List<SlurmNodeState> slurmNodes) {
        return StepGraph.preview(new StepGraph.Machine(before, after, seen, slurmNodes, null, List.of()));
    }

    /** One machine: its plan now against the one it would get, walking the step graph. */
    private static NodeChange node(StepGraph.Machine machine, FileDiffs fileDiffs) {
        List<Diff> diffs = StepGraph.preview(machine);
        return change(
                machine.after().node(),
                roles(machine.before()),
                roles(machine.after()),
                diffs.stream().flatMap(d -> d.actions().stream()).toList(),
                diffs.stream().flatMap(d -> d.waiting().stream()).toList(),
                fileDiffs);
    }

    /**
     * How a machine's actions are shown: the files they write, what they make daemons do, and a
     * sentence for each other action that is not housekeeping, in the order they are done; then what
     * waits for the machine to be free.
     */
    public static NodeChange change(
            String node,
            List<String> rolesBefore,
            List<String> rolesAfter,
            List<Action> all,
            List<String> waiting,
            FileDiffs fileDiffs) {
        List<FileChange> files = new ArrayList<>();
        List<DaemonChange> daemons = new ArrayList<>();
        List<String> actions = new ArrayList<>();
        for (Action action : all) {
            var written = action.files(fileDiffs);
            var daemon = action.daemon();
            files.addAll(written);
            daemon.ifPresent(daemons::add);
            if (written.isEmpty() && daemon.isEmpty() && !action.housekeeping()) {
                actions.add(action.will());
            }
        }
        actions.addAll(waiting);
        return new NodeChange(node, rolesBefore, rolesAfter, files, daemons, actions);
    }

    /** A plan's roles as status names them: the daemon each runs. */
    static List<String> roles(NodePlan plan) {
        List<String> roles = new ArrayList<>();
        if (plan.runs(Role.CONTROLLER)) {
            roles.add("slurmctld");
        }
        if (plan.runs(Role.COMPUTE)) {
            roles.add("slurmd");
        }
        return roles;
    }

    /** {@link FileDiffs#unified}: {@code before} → {@code after} as a unified diff. */
    public static String diff(String path, String before, String after) {
        return FileDiffs.unified(path, before, after);
    }
}
