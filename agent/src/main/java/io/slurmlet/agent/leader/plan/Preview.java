package io.slurmlet.agent.leader.plan;

import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.munge.MungeDiff;
import io.slurmlet.agent.packages.PackagesDiff;
import io.slurmlet.agent.pam.PamDiff;
import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.slurm.NodeStatesDiff;
import io.slurmlet.agent.slurm.SlurmDiff;
import io.slurmlet.agent.slurm.SlurmReport;
import io.slurmlet.agent.storage.StorageDiff;
import io.slurmlet.agent.users.UsersDiff;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.PamSeen;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.UsersPlan;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a change of the settings would do on each machine, before anything is stored: every step's
 * own diff (packages, munge, storage, users, slurm, PAM, in the order an agent's pass runs them) of
 * what the plan it would get wants against what the machine holds. What it holds is what its agent
 * last reported of it ({@link Observed}: packages, munge, storage, users, PAM, the jobs running
 * there, Slurm's files by their digests); a step that has not reported is taken to hold the
 * machine's current plan. So a preview lists what the agents will do, from the same
 * functions they act on.
 * The munge key is never in it: the plans are made without it. Pure.
 */
public final class Preview {

    /** Lines of context around each change, as {@code diff -u} and {@code git diff} print. */
    static final int CONTEXT = FileDiffs.CONTEXT;

    private Preview() {}

    /**
     * @param current   the settings stored now, with their revision
     * @param next      the settings as the change would make them, already free of problems
     * @param inventory every machine with an agent, by name, with its facts
     */
    public static SettingsPreview of(SettingsDocument current, SlurmSettings next, Map<String, NodeFacts> inventory) {
        return of(current, next, inventory, Map.of());
    }

    /** @param observed what each machine's agent last reported of it, by name */
    public static SettingsPreview of(
            SettingsDocument current,
            SlurmSettings next,
            Map<String, NodeFacts> inventory,
            Map<String, Observed> observed) {
        return of(current, next, new Cluster(inventory, observed, Map.of(), Set.of(), Set.of(), List.of()));
    }

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

        public Cluster(
                Map<String, NodeFacts> inventory,
                Map<String, Observed> observed,
                Map<String, List<SlurmNodeState>> slurmNodes,
                Set<String> underWay,
                Set<String> known,
                List<Account> accounts,
                Set<Long> memoryClasses) {
            this(inventory, observed, slurmNodes, underWay, known, accounts, memoryClasses, List.of());
        }

        public Cluster(
                Map<String, NodeFacts> inventory,
                Map<String, Observed> observed,
                Map<String, List<SlurmNodeState>> slurmNodes,
                Set<String> underWay,
                Set<String> known,
                List<Account> accounts) {
            this(inventory, observed, slurmNodes, underWay, known, accounts, Set.of());
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
                    before,
                    after,
                    cluster.observed().getOrDefault(after.node(), Observed.NOTHING),
                    cluster.slurmNodes().get(after.node()),
                    diffs,
                    containers(before, after, inventory.get(after.node()), cluster.artifacts()));
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
        MungeDiff.Wanted munge = MungeDiff.desired(after);
        StorageDiff.Wanted storage = StorageDiff.desired(after);
        PamDiff.Wanted pam = PamDiff.desired(after, PamDiff.DEFAULT_BACKUP);
        PamSeen pamSeen =
                seen.pam() != null ? seen.pam() : PamDiff.assumed(PamDiff.desired(before, PamDiff.DEFAULT_BACKUP));
        return List.of(
                PackagesDiff.diff(
                        PackagesDiff.desired(after),
                        seen.packages() != null ? seen.packages() : PackagesDiff.assumed(PackagesDiff.desired(before))),
                MungeDiff.diff(
                        munge, seen.munge() != null ? seen.munge() : MungeDiff.assumed(MungeDiff.desired(before))),
                StorageDiff.diff(
                        storage,
                        (seen.storage() != null ? seen.storage() : StorageDiff.assumed(StorageDiff.desired(before)))
                                .withJobs(seen.jobs())),
                Diff.of(users(before, after), ""),
                UsersDiff.diff(
                        UsersDiff.desired(after),
                        seen.users() != null ? seen.users() : UsersDiff.assumed(UsersDiff.desired(before))),
                slurm(before, after, seen),
                // The slurm step runs before it in the same pass: slurmd then runs the plan's slurm.conf.
                PamDiff.diff(pam, PamDiff.afterSlurm(pamSeen, pam, after.slurm().runs("slurmd"))),
                NodeStatesDiff.diff(
                        NodeStatesDiff.desired(after),
                        slurmNodes != null ? slurmNodes : NodeStatesDiff.assumed(NodeStatesDiff.desired(before))));
    }

    /** One machine: its plan now against the one it would get. */
    private static NodeChange node(
            NodePlan before,
            NodePlan after,
            Observed seen,
            List<SlurmNodeState> slurmNodes,
            FileDiffs fileDiffs,
            List<Action> containers) {
        List<Diff> diffs = diffs(before, after, seen, slurmNodes);
        List<Action> actions = new ArrayList<>(
                diffs.stream().flatMap(d -> d.actions().stream()).toList());
        actions.addAll(containers);
        return change(
                after.node(),
                roles(before),
                roles(after),
                actions,
                diffs.stream().flatMap(d -> d.waiting().stream()).toList(),
                fileDiffs);
    }

    /**
     * What the containers step would do on one machine when the change turns containers on or off,
     * from what its agent last reported (its facts: enroot, pyxis and the Slurm it was built for,
     * nvidia-container-cli): a sentence each. Loading pyxis is the slurm step's (plugstack.conf and
     * the Prolog, once every machine has it), which the plans' notes say.
     *
     * @param facts     the machine's facts; null where it has not reported
     * @param artifacts the pinned files, as the plans carry them
     */
    static List<Action> containers(NodePlan before, NodePlan after, NodeFacts facts, List<Artifact> artifacts) {
        boolean was = before != null && before.containers().install();
        boolean will = after.containers().install();
        if (was == will) {
            return List.of();
        }
        if (!will) {
            return List.of(sentence(
                    "containers off: nothing installed for them is removed (enroot, pyxis, slurmlet's prolog stay)"));
        }
        ContainerFacts has = facts == null || facts.containers() == null ? ContainerFacts.NONE : facts.containers();
        String slurm = facts == null ? "" : facts.slurmVersion();
        List<Action> actions = new ArrayList<>();
        actions.add(sentence(
                "write enroot's settings (each user's folders under /run/enroot and /var/lib/enroot, the shared path in "
                        + "every container) and slurmlet's prolog"));
        pinned(artifacts, "enroot")
                .filter(v -> !v.equals(has.enroot()))
                .ifPresent(v ->
                        actions.add(sentence("install enroot %s (enroot, enroot+caps)%s, %s, its sha256 checked first"
                                .formatted(
                                        v,
                                        has.enroot().isEmpty() ? "" : " in place of " + has.enroot(),
                                        from(artifacts, "enroot")))));
        pinned(artifacts, "pyxis")
                .filter(v -> !v.equals(has.pyxis())
                        || slurm.isEmpty()
                        || !ContainerFacts.release(has.pyxisSlurm()).equals(ContainerFacts.release(slurm)))
                .ifPresent(v -> actions.add(
                        sentence("build pyxis %s against this machine's Slurm%s (its headers), %s, and install it at %s"
                                .formatted(
                                        v,
                                        slurm.isEmpty() ? "" : " " + slurm,
                                        from(artifacts, "pyxis"),
                                        ContainerFacts.PYXIS_PLUGIN))));
        if (after.containers().gpus()) {
            pinned(artifacts, "libnvidia-container-tools")
                    .filter(v -> !v.equals(has.nvidiaCli()))
                    .ifPresent(v -> actions.add(sentence("install nvidia-container-cli %s (it has NVIDIA GPUs), %s"
                            .formatted(v, from(artifacts, "libnvidia-container-tools")))));
        }
        if (artifacts.isEmpty()) {
            actions.add(
                    sentence(
                            "nothing is installed yet: the leader has no pinned file to give (its table, mirror or imported files)"));
        }
        return actions;
    }

    private static Optional<String> pinned(List<Artifact> artifacts, String name) {
        return artifacts.stream()
                .filter(a -> a.name().equals(name))
                .map(Artifact::version)
                .findFirst();
    }

    /** Where a machine fetches the files of {@code name}: the leader, where it holds them, or the mirror. */
    private static String from(List<Artifact> artifacts, String name) {
        boolean leader = artifacts.stream()
                .filter(a -> a.name().equals(name))
                .anyMatch(a -> URI.create(a.url()).getRawPath().startsWith(ArtifactTable.LEADER_FILES));
        return leader ? "fetched from the leader" : "fetched from the mirror";
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

    /**
     * The slurm step's diff against what the machine reported of Slurm's files (their digests, the
     * daemons, what they are owed); a file that holds neither plan's content is said so first.
     */
    static Diff slurm(NodePlan before, NodePlan after, Observed seen) {
        SlurmDiff.Wanted was = SlurmDiff.desired(before);
        SlurmDiff.Wanted will = SlurmDiff.desired(after);
        if (seen.slurm() == null) {
            return SlurmDiff.diff(will, SlurmReport.assumed(was, will));
        }
        SlurmReport.Reported reported = SlurmReport.fromReport(seen.slurm(), was, will);
        Diff diff = SlurmDiff.diff(will, reported.seen());
        if (reported.unknown().isEmpty()) {
            return diff;
        }
        List<Action> actions = new ArrayList<>();
        actions.add(sentence(
                ("%s: not what this machine's plan holds (an earlier plan, a change by hand, or a write that failed): "
                                + "written whole; its diff and what the daemons do for it are shown against the plan it had, if it had one")
                        .formatted(String.join(", ", reported.unknown()))));
        actions.addAll(diff.actions());
        return new Diff(actions, diff.settled(), diff.blocked(), diff.waiting());
    }

    /** What a change of who keeps the machine's users means, from the plans' own sections: a sentence before the users step's own actions. */
    static List<Action> users(NodePlan before, NodePlan after) {
        List<Action> actions = new ArrayList<>();
        boolean kept = before.users() instanceof UsersPlan.Keep;
        if (!kept && after.users() instanceof UsersPlan.Keep keep) {
            actions.add(sentence("keep the cluster's accounts as Linux users here, their homes in " + keep.homeRoot()));
        } else if (kept && !(after.users() instanceof UsersPlan.Keep)) {
            actions.add(sentence("stop keeping the accounts' users: they and their files stay as they are"));
        }
        return actions;
    }

    private static Action sentence(String will) {
        return new Action() {
            public String will() {
                return will;
            }

            public String did() {
                return will;
            }
        };
    }
}
