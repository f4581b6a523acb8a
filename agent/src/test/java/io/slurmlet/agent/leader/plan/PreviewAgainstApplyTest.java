package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.munge.MungeStep;
import io.slurmlet.agent.packages.PackagesStep;
import io.slurmlet.agent.pam.PamStep;
import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.slurm.NodeStatesStep;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.agent.steps.StepGraph;
import io.slurmlet.agent.storage.StorageStep;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeHostFiles;
import io.slurmlet.agent.system.fake.FakePackages;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.agent.system.fake.FakeSlurmctld;
import io.slurmlet.agent.system.fake.FakeUsers;
import io.slurmlet.agent.users.UsersStep;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * For every step (packages, munge, storage, users, slurm, PAM, Slurm's node states): a dry run of a change, made from
 * what each machine reported after its agent applied the current settings, lists exactly what the
 * agent then does when the change is applied: the same files with the same diffs, the same daemons
 * with the same actions and reasons, the same sentences, in the same order. Each machine is a
 * fake one (files, systemd, commands) that the real steps act on.
 */
class PreviewAgainstApplyTest {

    static final MungeKey KEY = MungeKey.random();
    static final List<String> MACHINES = List.of("c0", "n1", "n2", "other");

    static Map<String, NodeFacts> inventory() {
        Map<String, NodeFacts> inv = new TreeMap<>();
        for (String n : MACHINES) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("22.05.8")
                            .build());
        }
        return inv;
    }

    static final SlurmSettings NONE = SlurmSettings.DEFAULTS;

    static SlurmSettings cluster(Map<String, Object> with) {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SettingsJson.STRICT.valueToTree(new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), "gpu", null, null, false, null));
        with.forEach((k, v) -> tree.set(k, SettingsJson.STRICT.valueToTree(v)));
        return SettingsJson.toSettings(tree);
    }

    /** One machine the steps act on, in the step graph's order. */
    static final class Machine {
        final FakeFiles files = new FakeFiles();
        final FakeServices services = new FakeServices();
        final FakeSlurmctld commands = new FakeSlurmctld(new FakeCommands()
                .answerPrefix(List.of("install"), Commands.Result.ok(""))
                .notInstalled("showmount")
                .answerPrefix(List.of("exportfs"), Commands.Result.ok(""))
                .answerPrefix(List.of("scontrol"), Commands.Result.ok("")));
        final FakeHostFiles host =
                new FakeHostFiles(files).with("/proc/filesystems", "nodev\tsysfs\n\text4\nnodev\tnfsd\n");
        final FakePackages packages = new FakePackages();
        final FakeUsers users = new FakeUsers();
        final PackagesStep packaging = new PackagesStep(packages);
        final UsersStep accounts = new UsersStep(users, Path.of("/"));
        final MungeStep munge = new MungeStep(files, services, Path.of("/"), java.time.Clock.systemUTC());
        final StorageStep storage = new StorageStep(files, host, services, commands, Path.of("/"));
        final SlurmStep slurm =
                new SlurmStep(files, services, commands, Path.of("/"), Path.of("/var/lib/slurmlet"), host);
        final PamStep pam =
                new PamStep(files, services, Path.of("/"), Path.of("/var/lib/slurmlet"), Optional.of("hpc-admins"));
        final NodeStatesStep nodeStates = new NodeStatesStep(commands);
        /** In the step graph's order (containers aside: {@link #containersPreviewIsWhatApplyDoes}). */
        final List<Reconciler<?, ?>> steps = java.util.stream.Stream.<Reconciler<?, ?>>of(
                        packaging, munge, storage, accounts, slurm, pam, nodeStates)
                .sorted(java.util.Comparator.comparing(
                        s -> io.slurmlet.agent.steps.StepGraph.names().indexOf(s.name())))
                .toList();

        boolean broken;

        Machine() {
            put(
                    "/etc/pam.d/sshd",
                    "@include common-auth\naccount required pam_nologin.so\n@include common-account\n"
                            + "@include common-session\n");
            put("/etc/pam.d/common-session", "session required pam_unix.so\nsession optional pam_systemd.so\n");
            put("/usr/lib/security/pam_slurm_adopt.so", "\u007fELF");
        }

        void put(String path, String text) {
            files.put(Path.of(path), text.getBytes(StandardCharsets.UTF_8), "rw-r--r--", "root", "root");
        }

        final List<String> waited = new ArrayList<>();

        /** A pass of every step; the actions they did, in order (and what they held back, in {@link #waited}). */
        List<Action> pass(NodePlan plan) {
            List<Action> did = new ArrayList<>();
            waited.clear();
            for (Reconciler<?, ?> step : steps) {
                Outcome o = step.apply(plan);
                assertFalse(o.failed() && !broken, plan.node() + ": " + o);
                did.addAll(step.acted());
                waited.addAll(step.waiting());
            }
            return did;
        }

        Observed observed() {
            Observed report = Observed.NOTHING.withJobs(io.slurmlet.agent.slurm.LocalJobs.running(host));
            for (Reconciler<?, ?> step : steps) {
                if (step instanceof io.slurmlet.agent.reconcile.Reports r) {
                    report = r.reportInto(report);
                }
            }
            return report.withQueued(null);
        }
    }

    /**
     * Where {@code was} has a controller, its slurmctld has read slurm.conf: every node of it is in
     * the node table, drained as slurm.conf brings it. Without one there is no slurmctld to show
     * a node table, and neither the dry run nor the pass has node states to change.
     */
    static void slurmctldKnows(Planner.Plans was, Map<String, Machine> machines) {
        was.nodes().get("c0").nodeStates().keySet().stream()
                .sorted()
                .forEach(node -> machines.get("c0").commands.node(node, "slurmlet: not lent"));
    }

    /** Every machine applies {@code before} until it settles; then the dry run of {@code after} is compared with its apply. */
    static Map<String, NodeChange> previewIsWhatApplyDoes(SlurmSettings before, SlurmSettings after) {
        return previewIsWhatApplyDoes(before, after, machines -> {}, machines -> {});
    }

    /**
     * @param broken what goes wrong on the machines before they apply {@code before} (they then report it)
     * @param mended what is mended before they apply {@code after}
     */
    static Map<String, NodeChange> previewIsWhatApplyDoes(
            SlurmSettings before,
            SlurmSettings after,
            java.util.function.Consumer<Map<String, Machine>> broken,
            java.util.function.Consumer<Map<String, Machine>> mended) {
        return previewIsWhatApplyDoes(before, after, List.of(), broken, mended);
    }

    /** @param accounts the cluster's accounts, before and after */
    static Map<String, NodeChange> previewIsWhatApplyDoes(
            SlurmSettings before,
            SlurmSettings after,
            List<Account> accounts,
            java.util.function.Consumer<Map<String, Machine>> broken,
            java.util.function.Consumer<Map<String, Machine>> mended) {
        Map<String, NodeFacts> inventory = inventory();
        Map<String, Machine> machines = new LinkedHashMap<>();
        Map<String, Observed> reported = new TreeMap<>();
        Planner.Plans was = Planner.plan(before, inventory, KEY, Planner.Lent.asWished(before), accounts);
        MACHINES.forEach(n -> machines.put(n, new Machine()));
        slurmctldKnows(was, machines);
        broken.accept(machines);
        for (String n : MACHINES) {
            Machine m = machines.get(n);
            m.pass(was.nodes().get(n));
            m.pass(was.nodes().get(n));
            reported.put(n, m.observed());
        }
        mended.accept(machines);
        Map<String, NodeChange> preview = new TreeMap<>();
        Preview.of(
                        new SettingsDocument(3, before),
                        after,
                        Preview.Cluster.of(inventory, reported)
                                .withSlurmNodes(Map.of(
                                        "c0", machines.get("c0").nodeStates.nodes()))
                                .withAccounts(accounts))
                .nodes()
                .forEach(c -> preview.put(c.node(), c));
        Planner.Plans will = Planner.plan(after, inventory, KEY, Planner.Lent.asWished(after), accounts);
        for (String n : MACHINES) {
            List<Action> did = machines.get(n).pass(will.nodes().get(n));
            NodeChange applied = Preview.change(
                    n,
                    Preview.roles(was.nodes().get(n)),
                    Preview.roles(will.nodes().get(n)),
                    did,
                    machines.get(n).waited,
                    new FileDiffs());
            NodeChange shown = preview.get(n);
            List<String> users = shown == null
                    ? List.of()
                    : StepGraph.keepingUsers(was.nodes().get(n), will.nodes().get(n)).stream()
                            .map(Action::will)
                            .toList();
            assertEquals(applied.files(), shown == null ? List.of() : shown.files(), n + ": the files");
            assertEquals(applied.daemons(), shown == null ? List.of() : shown.daemons(), n + ": the daemons");
            assertEquals(
                    applied.actions(),
                    shown == null
                            ? List.of()
                            : shown.actions().stream()
                                    .filter(a -> !users.contains(a))
                                    .toList(),
                    n + ": the other actions");
        }
        return preview;
    }

    @Test
    void theFirstSettingsOfACluster() {
        previewIsWhatApplyDoes(NONE, cluster(Map.of()));
    }

    @Test
    void aPartitionRenamed() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("partition", "batch")));
    }

    @Test
    void sharedStorageServedByTheController() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"))));
    }

    @Test
    void sharedStorageMovedToASitesExport() {
        previewIsWhatApplyDoes(
                cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"))),
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))));
    }

    @Test
    void sharedStorageTakenAway() {
        previewIsWhatApplyDoes(
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))), cluster(Map.of()));
    }

    @Test
    void slurmletDisabled() {
        previewIsWhatApplyDoes(
                cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"))),
                cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"), "enabled", false)));
    }

    @Test
    void usersKeptAndPamSlurmAdoptThenBack() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("users", "slurmlet")));
        previewIsWhatApplyDoes(cluster(Map.of("users", "slurmlet")), cluster(Map.of()));
    }

    @Test
    void aMountThatFailedIsShownAsTheMountItStillIsNotTheOneThePlanSays() {
        SlurmSettings nfs = cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export")));
        previewIsWhatApplyDoes(
                nfs,
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"), "partition", "batch")),
                machines -> {
                    machines.get("n2").services.failing("shared.mount");
                    machines.get("n2").broken = true;
                },
                machines -> machines.get("n2").services.recovered("shared.mount"));
    }

    @Test
    void aMountUnderARunningJobStaysAndTheDryRunSaysItWaits() {
        Map<String, NodeChange> moved = previewIsWhatApplyDoes(
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))),
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/other"))),
                machines -> machines.get("n2").host.stepOf(4242, "12"),
                machines -> {});
        assertEquals(
                List.of("mounting nas:/other at /shared instead of nas:/export waits for job 12 running here to end"),
                moved.get("n2").actions());
        assertEquals(
                List.of("mount nas:/other at /shared again, instead of nas:/export"),
                moved.get("n1").actions());
        Map<String, NodeChange> gone = previewIsWhatApplyDoes(
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))),
                cluster(Map.of()),
                machines -> machines.get("n1").host.stepOf(4242, "12").stepOf(4243, "9"),
                machines -> {});
        assertEquals(
                List.of(
                        "have slurmd no longer wait for shared storage",
                        "unmounting /shared waits for jobs 9, 12 running here to end"),
                gone.get("n1").actions());
    }

    @Test
    void aNodeTakenOutOfSlurm() {
        Map<String, NodeChange> out = previewIsWhatApplyDoes(
                cluster(Map.of()), cluster(Map.of("nodes", List.of("n1"), "lent", List.of("n1"))));
        // 22.05 takes a changed node set only at slurmctld's start; the reconfigure it then owes the slurmds is shown
        // too.
        assertEquals(
                List.of("RESTART slurmctld", "RECONFIGURE slurmctld"),
                out.get("c0").daemons().stream()
                        .map(d -> d.action() + " " + d.unit())
                        .toList());
    }

    @Test
    void aSlurmConfAdditionThatIsReconfiguredAndOneThatRestarts() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("slurm_conf", Map.of("MaxJobCount", "20000"))));
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("slurm_conf", Map.of("SwitchType", "switch/none"))));
    }

    static final String KEY_A =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEuOvAXyxKBTxdBHVC6xfUjUGNUmwL6gPgKTGWGGjX2H alice@laptop";
    static final String KEY_B =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb bob@laptop";
    static final Account ALICE = new Account("alice@example.org", "alice", 200000, 200000, List.of(KEY_A), true, false);
    static final Account BOB = new Account("bob@example.org", "bob", 200001, 200001, List.of(KEY_B), true, false);

    @Test
    void accountsAddedDisabledRemovedAndGivenNewKeys() {
        SlurmSettings users = cluster(Map.of("users", "slurmlet"));
        Map<String, NodeChange> first =
                previewIsWhatApplyDoes(cluster(Map.of()), users, List.of(ALICE, BOB), m -> {}, m -> {});
        assertEquals(
                true,
                first.get("n1").actions().contains("add user alice (uid 200000), its home /home/alice"),
                first.get("n1").actions().toString());
        assertEquals(
                true,
                first.get("n1").actions().contains("write alice's 1 key to /home/alice/.ssh/authorized_keys"),
                first.get("n1").actions().toString());
        assertEquals(
                true,
                first.get("n1").actions().contains("install libpam-slurm-adopt"),
                first.get("n1").actions().toString());
        assertFalse(first.containsKey("other"), "no role, no users");
    }

    /** The same accounts before and after on every machine but for the change named: the machines' users are the accounts' of before. */
    @Test
    void aChangeOfTheAccountsIsShownAsEachMachineHoldsThem() {
        SlurmSettings users = cluster(Map.of("users", "slurmlet"));
        Map<String, NodeChange> changed = previewAccounts(
                users, List.of(ALICE, BOB), List.of(ALICE.withEnabled(false), BOB.withKeys(List.of(KEY_B, KEY_A))));
        assertEquals(
                List.of(
                        "lock alice (disabled): its files are kept",
                        "write bob's 2 keys to /home/bob/.ssh/authorized_keys"),
                changed.get("n1").actions());
        Map<String, NodeChange> removed = previewAccounts(users, List.of(ALICE, BOB), List.of(ALICE, BOB.asRemoved()));
        assertEquals(
                List.of("lock bob (removed): its files are kept"),
                removed.get("c0").actions());
    }

    @Test
    void aUserOfTheSiteOrASymbolicLinkInAHomeHoldsOnlyThatAccountBack() {
        SlurmSettings users = cluster(Map.of("users", "slurmlet"));
        Account carol = new Account("carol@example.org", "carol", 200002, 200002, List.of(KEY_A), true, false);
        Map<String, NodeChange> shown = previewAccounts(
                users,
                List.of(ALICE, BOB, carol),
                List.of(ALICE.withKeys(List.of(KEY_B)), BOB, carol.withKeys(List.of(KEY_B, KEY_A))),
                machines -> {
                    machines.get("n2")
                            .users
                            .users
                            .put(
                                    "carol",
                                    new io.slurmlet.agent.system.Users.Entry(
                                            "carol", 200002, 200002, "/home/carol", "Carol of the site", false));
                    machines.get("n2").users.links.add(Path.of("/home/alice/.ssh"));
                    machines.get("n2").broken = true;
                });
        assertEquals(
                List.of(),
                shown.containsKey("n2") ? shown.get("n2").actions() : List.of(),
                "alice's keys are not written through a link, carol is the site's: n2 has nothing to do for either");
        assertEquals(
                List.of(
                        "write alice's 1 key to /home/alice/.ssh/authorized_keys",
                        "write carol's 2 keys to /home/carol/.ssh/authorized_keys"),
                shown.get("n1").actions());
    }

    static Map<String, NodeChange> previewAccounts(SlurmSettings settings, List<Account> before, List<Account> after) {
        return previewAccounts(settings, before, after, machines -> {});
    }

    /**
     * The machines apply {@code settings} with the accounts {@code before}; the dry run of the same
     * settings with the accounts {@code after} is compared with what they then do.
     */
    static Map<String, NodeChange> previewAccounts(
            SlurmSettings settings,
            List<Account> before,
            List<Account> after,
            java.util.function.Consumer<Map<String, Machine>> broken) {
        Map<String, NodeFacts> inventory = inventory();
        Map<String, Machine> machines = new LinkedHashMap<>();
        Map<String, Observed> reported = new TreeMap<>();
        Planner.Plans was = Planner.plan(settings, inventory, KEY, Planner.Lent.asWished(settings), before);
        MACHINES.forEach(n -> machines.put(n, new Machine()));
        slurmctldKnows(was, machines);
        for (String n : MACHINES) {
            machines.get(n).pass(was.nodes().get(n));
        }
        broken.accept(machines);
        for (String n : MACHINES) {
            machines.get(n).pass(was.nodes().get(n));
            reported.put(n, machines.get(n).observed());
        }
        // The settings are the same: what differs is the accounts the plans are made with.
        Map<String, NodeChange> preview = new TreeMap<>();
        for (NodePlan plan : Planner.plan(settings, inventory, KEY, Planner.Lent.asWished(settings), after)
                .nodes()
                .values()) {
            Machine m = machines.get(plan.node());
            List<io.slurmlet.agent.reconcile.Diff> shown = Preview.diffs(
                    was.nodes().get(plan.node()),
                    plan,
                    reported.get(plan.node()),
                    plan.node().equals("c0") ? machines.get("c0").nodeStates.nodes() : null);
            NodeChange would = Preview.change(
                    plan.node(),
                    List.of(),
                    List.of(),
                    shown.stream().flatMap(d -> d.actions().stream()).toList(),
                    shown.stream().flatMap(d -> d.waiting().stream()).toList(),
                    new FileDiffs());
            List<Action> did = m.pass(plan);
            NodeChange applied = Preview.change(plan.node(), List.of(), List.of(), did, m.waited, new FileDiffs());
            assertEquals(applied, would, plan.node() + ": the dry run against what it did");
            preview.put(plan.node(), would);
        }
        return preview;
    }

    @Test
    void nodesLentAndReclaimedUnderRunningJobs() {
        Map<String, NodeChange> lent = previewIsWhatApplyDoes(
                cluster(Map.of()),
                cluster(Map.of("lent", List.of("n2"))),
                machines -> machines.get("c0").commands.job("n1", "12 of alice"),
                machines -> {});
        assertEquals(
                List.of("resume n2 in Slurm", "drain n1 in Slurm (slurmlet: not lent): running jobs finish"),
                lent.get("c0").actions());
    }

    @Test
    void aClusterRenamedKeepsTheIdSlurmctldWroteInItsState() {
        Map<String, NodeChange> renamed = previewIsWhatApplyDoes(
                cluster(Map.of()),
                cluster(Map.of("cluster_name", "prod")),
                machines -> machines.get("c0").put("/var/lib/slurm/slurmctld/clustername", "lab|617"),
                machines -> {});
        var state = renamed.get("c0").files().stream()
                .filter(f -> f.path().endsWith("/clustername"))
                .findFirst()
                .orElseThrow();
        assertEquals(true, state.diff().contains("-lab|617") && state.diff().contains("+prod|617"), state.diff());
    }

    @Test
    void aSlurmFileChangedByHandIsSaidSoAndWrittenWhole() {
        Map<String, NodeFacts> inventory = inventory();
        Planner.Plans was = Planner.plan(cluster(Map.of()), inventory, KEY);
        Planner.Plans will = Planner.plan(cluster(Map.of("partition", "batch")), inventory, KEY);
        // What n1's agent reports of a slurm.conf someone edited by hand.
        Observed seen = new Observed(
                null,
                null,
                null,
                List.of(),
                null,
                null,
                io.slurmlet.agent.slurm.SlurmReport.report(
                        new io.slurmlet.agent.slurm.SlurmDiff.Seen(
                                Map.of(
                                        "/etc/slurm/slurm.conf",
                                        new io.slurmlet.agent.slurm.SlurmDiff.FileNow(
                                                "# edited by hand\n", "rw-r--r--", "root", "root")),
                                java.util.Set.of(),
                                java.util.Set.of(),
                                Map.of(),
                                false,
                                Map.of()),
                        io.slurmlet.agent.slurm.SlurmDiff.desired(was.nodes().get("n1"))));
        List<String> said = Preview.diffs(was.nodes().get("n1"), will.nodes().get("n1"), seen).stream()
                .flatMap(d -> d.will().stream())
                .toList();
        assertEquals(
                true,
                said.get(0).startsWith("/etc/slurm/slurm.conf: not what this machine's plan holds"),
                said.toString());
        assertEquals(true, said.stream().anyMatch(w -> w.startsWith("write /etc/slurm/slurm.conf")), said.toString());
    }

    @Test
    void aNodeBackInSlurmWhoseSlurmdStillRanIsNotStartedAgain() {
        // n2 left the nodes while a job still ran there (a job of its own, not one Slurm lists): slurmlet stops no
        // slurmd a
        // job needs, so its slurmd and files are still there when it comes back.
        Map<String, NodeChange> back = previewIsWhatApplyDoes(
                cluster(Map.of("nodes", List.of("n1"), "lent", List.of("n1"))),
                cluster(Map.of()),
                machines -> {
                    machines.get("n2").host.stepOf(4242, "77");
                    machines.get("n2").services.running("slurmd");
                    machines.get("n2")
                            .put(
                                    "/etc/slurm/slurm.conf",
                                    Planner.plan(cluster(Map.of()), inventory(), KEY)
                                            .nodes()
                                            .get("n2")
                                            .files()
                                            .get("/etc/slurm/slurm.conf"));
                },
                machines -> {});
        assertEquals(
                List.of(),
                back.get("n2").daemons().stream()
                        .filter(d -> d.unit().equals("slurmd")
                                && d.action() == io.slurmlet.model.api.SettingsPreview.Action.START)
                        .toList(),
                "slurmd runs already");
        assertEquals(
                List.of(),
                back.get("n2").files().stream()
                        .filter(f -> f.path().equals("/etc/slurm/slurm.conf"))
                        .toList(),
                "the file it kept is the one it gets back");
    }

    static final String MIRROR = "http://10.77.0.2:8080/";
    static final List<String> DPKG_QUERY =
            List.of("dpkg-query", "-W", "-f=${Package} ${db:Status-Status} ${Version}\\n", "enroot", "enroot+caps");
    /** What the step asks with containers off: nvidia-container-cli's packages too. */
    static final List<String> DPKG_QUERY_ALL = java.util.stream.Stream.concat(
                    DPKG_QUERY.stream(),
                    java.util.stream.Stream.of("libnvidia-container1", "libnvidia-container-tools"))
            .toList();

    static io.slurmlet.model.plan.Artifact artifact(
            String name, String version, String arch, String format, String file) {
        return new io.slurmlet.model.plan.Artifact(
                name,
                version,
                arch,
                format,
                file,
                Integer.toHexString(file.hashCode() & 0xf).repeat(64),
                MIRROR + file);
    }

    static List<io.slurmlet.model.plan.Artifact> pinned(String enroot, String pyxis) {
        return List.of(
                artifact("enroot", enroot, "amd64", "deb", "enroot_" + enroot + "-1_amd64.deb"),
                artifact("enroot+caps", enroot, "amd64", "deb", "enroot+caps_" + enroot + "-1_amd64.deb"),
                artifact("enroot", enroot, "arm64", "deb", "enroot_" + enroot + "-1_arm64.deb"),
                artifact("pyxis", pyxis, "all", "source", "pyxis-" + pyxis + ".tar.gz"));
    }

    /** A Debian machine with Slurm 24.11.5 and its headers, whose containers step acts on files under {@code root}. */
    static final class ContainersMachine {
        final FakeFiles files = new FakeFiles();
        final FakeCommands commands = new FakeCommands();
        final io.slurmlet.agent.containers.ContainersStep step;

        ContainersMachine(Path root) throws java.io.IOException {
            files.put(
                    root.resolve("usr/include/slurm/slurm_version.h"),
                    "#define SLURM_VERSION_NUMBER 0x180b05\n".getBytes(StandardCharsets.UTF_8),
                    "rw-r--r--",
                    "root",
                    "root");
            commands.answer(List.of("dpkg", "--print-architecture"), "amd64\n")
                    .answer(DPKG_QUERY, "enroot installed 4.1.2-1\nenroot+caps installed 4.1.2-1\n")
                    .answer(DPKG_QUERY_ALL, "enroot installed 4.1.2-1\nenroot+caps installed 4.1.2-1\n")
                    .answer(List.of("srun", "-V"), "slurm 24.11.5\n")
                    .answerPrefix(List.of("install", "-d"), Commands.Result.ok(""))
                    .answerPrefix(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get"), Commands.Result.ok(""))
                    .answerPrefix(List.of("tar"), Commands.Result.ok(""))
                    .answerPrefix(List.of("rm"), Commands.Result.ok(""))
                    .answerPrefix(List.of("env"), call -> {
                        String dir = call.argv().get(call.argv().indexOf("-C") + 1);
                        try {
                            java.nio.file.Files.write(Path.of(dir).resolve("spank_pyxis.so"), new byte[] {1, 2, 3});
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        return Commands.Result.ok("");
                    });
            for (String folder : io.slurmlet.agent.containers.ContainersDiff.FOLDERS) {
                Path p = root.resolve(folder.substring(1));
                java.nio.file.Files.createDirectories(p);
                java.nio.file.Files.setPosixFilePermissions(
                        p, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            step = new io.slurmlet.agent.containers.ContainersStep(
                    files,
                    commands,
                    a -> Path.of("/var/lib/slurmlet/containers/artifacts/" + a.file()),
                    root,
                    root.resolve("var/lib/slurmlet"));
        }
    }

    /** {@code plan} as the leader publishes it: with the pinned files in its containers section, where they are on. */
    static NodePlan publishedWith(NodePlan plan, List<io.slurmlet.model.plan.Artifact> artifacts) {
        var c = plan.containers();
        if (!c.install()) {
            return plan;
        }
        return plan.withContainers(
                new io.slurmlet.model.plan.ContainersPlan(true, artifacts, c.sharedPath(), c.gpus()));
    }

    /**
     * The containers step applies {@code before} (containers on or off) until it settles and reports
     * what it saw; the dry run of {@code after}, from that report, is what the step then does.
     */
    static NodeChange containersPreviewIsWhatApplyDoes(
            Path root,
            SlurmSettings before,
            List<io.slurmlet.model.plan.Artifact> pinnedBefore,
            SlurmSettings after,
            List<io.slurmlet.model.plan.Artifact> pinnedAfter)
            throws java.io.IOException {
        Map<String, NodeFacts> inventory = inventory();
        NodePlan was = Planner.plan(before, inventory, KEY).nodes().get("n1");
        NodePlan will = Planner.plan(after, inventory, KEY).nodes().get("n1");
        ContainersMachine m = new ContainersMachine(root);
        m.step.apply(publishedWith(was, pinnedBefore));
        assertEquals(
                Outcome.Kind.UNCHANGED,
                m.step.apply(publishedWith(was, pinnedBefore)).kind(),
                "settled");
        Observed reported = m.step.reportInto(Observed.NOTHING);
        assertEquals(
                "amd64 deb",
                reported.containers().arch() + " " + reported.containers().format(),
                "the report says what the facts cannot");
        Observed sent = SettingsJson.STRICT.readValue(SettingsJson.STRICT.writeValueAsString(reported), Observed.class);
        List<io.slurmlet.agent.reconcile.Diff> shown = io.slurmlet.agent.steps.StepGraph.preview(
                new io.slurmlet.agent.steps.StepGraph.Machine(was, will, sent, null, inventory.get("n1"), pinnedAfter));
        io.slurmlet.agent.reconcile.Diff containers =
                shown.get(io.slurmlet.agent.steps.StepGraph.names().indexOf("containers"));
        NodeChange would =
                Preview.change("n1", List.of(), List.of(), containers.actions(), containers.waiting(), new FileDiffs());
        Outcome o = m.step.apply(publishedWith(will, pinnedAfter));
        assertFalse(o.failed(), o.toString());
        NodeChange applied =
                Preview.change("n1", List.of(), List.of(), m.step.acted(), m.step.waiting(), new FileDiffs());
        assertEquals(applied, would, "the dry run against what the containers step did");
        return would;
    }

    @Test
    void containersAStepAheadOfTheirPinsAndTheSharedPathTheyBind(@org.junit.jupiter.api.io.TempDir Path root)
            throws java.io.IOException {
        SlurmSettings on = cluster(Map.of("containers", true));
        NodeChange moved = containersPreviewIsWhatApplyDoes(
                root,
                on,
                pinned("4.1.2", "0.24.0"),
                cluster(Map.of("containers", true, "shared", Map.of("path", "/shared", "nfs", "nas:/export"))),
                pinned("4.1.3", "0.24.0"));
        says(moved, "write /etc/enroot/mounts.d/50-slurmlet-shared.fstab", "");
        says(moved, "install enroot 4.1.3", ", over enroot 4.1.2-1, enroot+caps 4.1.2-1");
    }

    /** That one of {@code change}'s sentences starts and ends so. */
    static void says(NodeChange change, String start, String end) {
        assertEquals(
                true,
                change.actions().stream().anyMatch(a -> a.startsWith(start) && a.endsWith(end)),
                change.actions().toString());
    }

    @Test
    void containersWithANewPyxisSourceBuildItAgain(@org.junit.jupiter.api.io.TempDir Path root)
            throws java.io.IOException {
        SlurmSettings on = cluster(Map.of("containers", true));
        NodeChange rebuilt =
                containersPreviewIsWhatApplyDoes(root, on, pinned("4.1.2", "0.24.0"), on, pinned("4.1.2", "0.25.0"));
        says(rebuilt, "build pyxis 0.25.0 for Slurm 24.11.5", "the installed one is pyxis 0.24.0, from another source");
    }

    @Test
    void containersTurnedOnWhereEnrootIsAlreadyInstalled(@org.junit.jupiter.api.io.TempDir Path root)
            throws java.io.IOException {
        NodeChange on = containersPreviewIsWhatApplyDoes(
                root, cluster(Map.of()), List.of(), cluster(Map.of("containers", true)), pinned("4.1.2", "0.24.0"));
        says(on, "write /etc/enroot/enroot.conf.d/50-slurmlet.conf", "");
        says(on, "build pyxis 0.24.0 for Slurm 24.11.5", "");
        assertFalse(
                on.actions().stream().anyMatch(a -> a.startsWith("install enroot")),
                "enroot 4.1.2 is installed: " + on.actions());
    }

    @Test
    void containersTurnedOffChangeNothingThere(@org.junit.jupiter.api.io.TempDir Path root) throws java.io.IOException {
        NodeChange off = containersPreviewIsWhatApplyDoes(
                root, cluster(Map.of("containers", true)), pinned("4.1.2", "0.24.0"), cluster(Map.of()), List.of());
        assertEquals(List.of(), off.actions(), "nothing installed for them is removed");
    }
}
