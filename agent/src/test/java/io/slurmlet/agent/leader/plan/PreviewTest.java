package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.munge.MungeStep;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeHostFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.Action;
import io.slurmlet.model.api.SettingsPreview.Change;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PreviewTest {

    private static final MungeKey KEY = MungeKey.random();
    private static final String SLURM_CONF = "/etc/slurm/slurm.conf";

    static Map<String, NodeFacts> inventory() {
        Map<String, NodeFacts> inv = new HashMap<>();
        for (String n : List.of("c0", "n1", "n2", "other")) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("24.11.5")
                            .build());
        }
        inv.put(
                "g1",
                NodeFacts.builder("g1")
                        .cpus(64)
                        .sockets(2)
                        .coresPerSocket(16)
                        .threadsPerCore(2)
                        .memoryMiB(515_000)
                        .gpus(List.of(new NodeFacts.Gpus("NVIDIA H200", 8)))
                        .os("debian 12")
                        .slurmVersion("24.11.5")
                        .build());
        return inv;
    }

    static SlurmSettings cluster() {
        return new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), "gpu", null, null, false, null);
    }

    static SlurmSettings with(String key, Object value) {
        var tree = SettingsJson.STRICT.valueToTree(cluster());
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree).set(key, SettingsJson.STRICT.valueToTree(value));
        return SettingsJson.toSettings(tree);
    }

    static SettingsPreview preview(SlurmSettings before, SlurmSettings after) {
        return Preview.of(new SettingsDocument(7, before), after, Preview.Cluster.of(inventory(), Map.of()));
    }

    static Map<String, NodeChange> byNode(SettingsPreview p) {
        Map<String, NodeChange> m = new TreeMap<>();
        p.nodes().forEach(n -> m.put(n.node(), n));
        return m;
    }

    static List<String> actions(NodeChange n) {
        return n.daemons().stream()
                .map(d -> d.action().name().toLowerCase() + " " + d.unit())
                .toList();
    }

    /**
     * Containers on: each Slurm machine's preview says what its containers step would install or
     * build, from what its agent reported and where the files come from; one that has it all, only its
     * settings. Off: nothing installed is removed.
     */
    @Test
    void containersOnSaysWhatEachMachineWouldInstallOrBuildFromWhatItReported() {
        Map<String, NodeFacts> inv = inventory();
        inv.put(
                "n2",
                inv.get("n2")
                        .withContainers(new io.slurmlet.model.facts.ContainerFacts(
                                "4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true)));
        SlurmSettings before = new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2", "g1"), false, List.of("n1"), "gpu", null, null, false, null);
        SlurmSettings after = new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2", "g1"), false, List.of("n1"), "gpu", null, null, true, null);
        String sha = "a".repeat(64);
        List<io.slurmlet.model.plan.Artifact> artifacts = List.of(
                new io.slurmlet.model.plan.Artifact(
                        "enroot",
                        "4.1.2",
                        "amd64",
                        "deb",
                        "enroot_4.1.2-1_amd64.deb",
                        sha,
                        "https://c0:7818/v1/agent/containers/files/" + sha + "/enroot_4.1.2-1_amd64.deb"),
                new io.slurmlet.model.plan.Artifact(
                        "pyxis",
                        "0.24.0",
                        "all",
                        "source",
                        "pyxis-0.24.0.tar.gz",
                        sha,
                        "http://mirror.example.org/pyxis-0.24.0.tar.gz"),
                new io.slurmlet.model.plan.Artifact(
                        "libnvidia-container-tools",
                        "1.17.8",
                        "amd64",
                        "deb",
                        "libnvidia-container-tools_1.17.8-1_amd64.deb",
                        sha,
                        "http://mirror.example.org/libnvidia-container-tools_1.17.8-1_amd64.deb"));
        Preview.Cluster cluster = Preview.Cluster.of(inv, Map.of()).withArtifacts(artifacts);
        Map<String, NodeChange> nodes = byNode(Preview.of(new SettingsDocument(7, before), after, cluster));
        String settings =
                "write enroot's settings (each user's folders under /run/enroot and /var/lib/enroot, the shared path in every "
                        + "container) and slurmlet's prolog";
        // The packages step's own first: what pyxis is built with.
        assertEquals(
                List.of(
                        "install gcc, make, libc6-dev, libslurm-dev",
                        settings,
                        "install enroot 4.1.2 (enroot, enroot+caps), fetched from the leader, its sha256 checked first",
                        "build pyxis 0.24.0 against this machine's Slurm 24.11.5 (its headers), fetched from the mirror, and install it at "
                                + "/usr/local/lib/slurm/spank_pyxis.so"),
                nodes.get("n1").actions());
        assertEquals(
                List.of("install gcc, make, libc6-dev, libslurm-dev", settings),
                nodes.get("n2").actions(),
                "n2 has enroot, and pyxis built for its Slurm");
        assertTrue(
                nodes.get("g1")
                        .actions()
                        .contains("install nvidia-container-cli 1.17.8 (it has NVIDIA GPUs), fetched from the mirror"),
                nodes.get("g1").actions().toString());
        assertFalse(nodes.containsKey("other"), "not a Slurm machine: nothing of containers");

        Map<String, NodeChange> off = byNode(Preview.of(new SettingsDocument(8, after), before, cluster));
        assertTrue(
                off.get("n1")
                        .actions()
                        .contains("containers off: nothing installed for them is removed (enroot, pyxis, slurmlet's "
                                + "prolog stay)"),
                off.get("n1").actions().toString());
    }

    @Test
    void renamingThePartitionChangesSlurmConfEverywhereAndReconfiguresWithoutARestart() {
        SettingsPreview p = preview(cluster(), with("partition", "batch"));
        assertEquals(7, p.revision());
        assertTrue(p.changed());
        Map<String, NodeChange> nodes = byNode(p);
        assertEquals(Set.of("c0", "n1", "n2"), nodes.keySet(), "every Slurm machine, and no other");
        for (NodeChange n : nodes.values()) {
            assertEquals(1, n.files().size(), n::toString);
            FileChange f = n.files().get(0);
            assertEquals(SLURM_CONF, f.path());
            assertEquals(Change.CHANGED, f.change());
            assertTrue(f.diff().startsWith("--- a/etc/slurm/slurm.conf\n+++ b/etc/slurm/slurm.conf\n@@ "), f.diff());
            assertTrue(f.diff().contains("\n-PartitionName=gpu Nodes=n[1-2]"), f.diff());
            assertTrue(f.diff().contains("\n+PartitionName=batch Nodes=n[1-2]"), f.diff());
            assertEquals(n.rolesBefore(), n.rolesAfter());
        }
        assertEquals(List.of("reconfigure slurmctld"), actions(nodes.get("c0")));
        assertEquals(List.of("reconfigure slurmd"), actions(nodes.get("n1")));
        assertEquals(
                "scontrol reconfigure: slurmctld reads the new files and has every slurmd read them too",
                nodes.get("c0").daemons().get(0).why());
    }

    @Test
    void aKeyReadOnlyAtStartRestartsBothDaemonsNamingTheKey() {
        SettingsPreview p = preview(cluster(), with("users", "slurmlet"));
        Map<String, NodeChange> nodes = byNode(p);
        assertEquals(List.of("restart slurmctld"), actions(nodes.get("c0")));
        assertEquals(List.of("restart slurmd"), actions(nodes.get("n2")));
        assertEquals(
                "slurm.conf changes PrologFlags, which slurmd reads only at start",
                nodes.get("n2").daemons().get(0).why());
        assertTrue(nodes.get("n2").files().get(0).diff().contains("\n+PrologFlags=Contain\n"));
    }

    @Test
    void enablingMakesEveryFileAndStartsEveryDaemonShowingNoKey() {
        SlurmSettings off = new SlurmSettings(
                false, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), "gpu", null, null, false, null);
        SettingsPreview p = preview(off, cluster());
        Map<String, NodeChange> nodes = byNode(p);
        assertEquals(Set.of("c0", "n1", "n2"), nodes.keySet());
        NodeChange c0 = nodes.get("c0");
        assertEquals(List.of(), c0.rolesBefore());
        assertEquals(List.of("slurmctld"), c0.rolesAfter());
        assertEquals(
                List.of(
                        "/etc/munge/munge.key",
                        SLURM_CONF,
                        "/etc/slurm/cgroup.conf",
                        "/etc/slurm/gres.conf",
                        "/etc/slurm/plugstack.conf",
                        "/etc/systemd/system/slurmctld.service.d/10-slurmlet-restart.conf"),
                c0.files().stream().map(FileChange::path).toList(),
                "in the order the steps write");
        assertTrue(c0.files().stream().allMatch(f -> f.change() == Change.CREATED));
        assertNull(c0.files().get(0).diff(), "the key's content is never shown");
        assertTrue(
                c0.files().get(1).diff().startsWith("--- /dev/null\n+++ b/etc/slurm/slurm.conf\n@@ -0,0 +1,"),
                c0.files().get(1).diff());
        assertEquals(List.of("start munge", "start slurmctld"), actions(c0));
        assertEquals(List.of("start munge", "start slurmd"), actions(nodes.get("n1")));
        assertEquals(
                "slurmd does not run here yet", nodes.get("n1").daemons().get(1).why());
        String json = new String(SettingsJson.pretty(p), java.nio.charset.StandardCharsets.UTF_8);
        assertFalse(json.contains("munge_key"), json);
        assertFalse(json.contains(Base64.getEncoder().encodeToString(KEY.bytes())), json);
    }

    @Test
    void settingsThatChangeNoMachineHaveNoNodes() {
        SettingsPreview same = preview(cluster(), cluster());
        assertFalse(same.changed());
        assertEquals(List.of(), same.nodes());
        // A node without an agent changes the settings, but no machine's files.
        SettingsPreview noAgent = preview(cluster(), with("nodes", List.of("n1", "n2", "n9")));
        assertTrue(noAgent.changed());
        assertEquals(List.of(), noAgent.nodes());
    }

    @Test
    void aMachineLeavingSlurmKeepsItsFilesAndItsSlurmdStopsOnceNoJobNeedsIt() {
        SettingsPreview p = preview(cluster(), with("nodes", List.of("n1")));
        NodeChange n2 = byNode(p).get("n2");
        assertEquals(List.of("slurmd"), n2.rolesBefore());
        assertEquals(List.of(), n2.rolesAfter());
        assertEquals(List.of(), n2.files());
        assertEquals(
                List.of(new DaemonChange("slurmd", Action.STOP, "this machine is not a node of Slurm")), n2.daemons());
    }

    @Test
    void diffsAreUnifiedWithThreeLinesOfContext() {
        String before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
        String after = "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\nM\n";
        assertEquals("""
                --- a/etc/x.conf
                +++ b/etc/x.conf
                @@ -1,7 +1,7 @@
                 a
                 b
                 c
                -d
                +D
                 e
                 f
                 g
                @@ -10,4 +10,4 @@
                 j
                 k
                 l
                -m
                +M
                """, Preview.diff("/etc/x.conf", before, after));
        assertEquals("", Preview.diff("/etc/x.conf", before, before));
        assertEquals(
                "--- /dev/null\n+++ b/etc/x.conf\n@@ -0,0 +1,2 @@\n+a\n+b\n",
                Preview.diff("/etc/x.conf", null, "a\nb\n"));
        assertEquals(
                "--- a/etc/x.conf\n+++ b/etc/x.conf\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+a\n",
                Preview.diff("/etc/x.conf", "a", "a\n"));
    }

    /** Changes of every kind a preview tells apart: reconfigure, restart for slurm.conf or gres.conf, start, role moves. */
    static Stream<SlurmSettings[]> changes() {
        SlurmSettings off = new SlurmSettings(
                false, "lab", "c0", List.of("n1", "n2"), false, List.of(), "gpu", null, null, false, null);
        return Stream.of(
                new SlurmSettings[] {cluster(), with("partition", "batch")},
                new SlurmSettings[] {cluster(), with("lent", List.of("n1", "n2"))},
                new SlurmSettings[] {cluster(), with("slurm_conf", Map.of("KillWait", "60"))},
                new SlurmSettings[] {cluster(), with("users", "slurmlet")},
                new SlurmSettings[] {cluster(), with("nodes", List.of("n1", "n2", "g1"))},
                new SlurmSettings[] {cluster(), with("controller", "n1")},
                new SlurmSettings[] {cluster(), with("nodes", List.of("n1"))},
                new SlurmSettings[] {off, cluster()},
                new SlurmSettings[] {cluster(), cluster()});
    }

    /** One machine: what the agent's steps did there, read from the fakes' logs. */
    record Machine(FakeFiles files, FakeServices services, FakeCommands commands, MungeStep munge, SlurmStep slurm) {
        static Machine fresh() {
            FakeFiles files = new FakeFiles();
            FakeServices services = new FakeServices();
            FakeCommands commands = new FakeCommands()
                    .answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""))
                    .answerPrefix(List.of("squeue"), Commands.Result.ok(""));
            return new Machine(
                    files,
                    services,
                    commands,
                    new MungeStep(files, services, Path.of("/"), java.time.Clock.systemUTC()),
                    new SlurmStep(
                            files,
                            services,
                            commands,
                            Path.of("/"),
                            Path.of("/var/lib/slurmlet"),
                            new FakeHostFiles(new FakeFiles())));
        }

        void apply(io.slurmlet.model.plan.NodePlan plan) {
            assertFalse(munge.apply(plan).failed());
            assertFalse(slurm.apply(plan).failed());
        }

        void clearLogs() {
            files.log.clear();
            services.log.clear();
            commands.clearLog();
        }

        Set<String> written() {
            Set<String> paths = new TreeSet<>();
            // The agent's own state (what a pass owes the daemons) is not a change to the machine's files.
            files.log.stream()
                    .map(line -> line.split(" ")[1])
                    .filter(p -> !p.startsWith("/var/lib/slurmlet/"))
                    .forEach(paths::add);
            return paths;
        }

        /** "start slurmd", "restart munge", "reconfigure slurmctld" (the scontrol reconfigure it issued). */
        List<String> acted() {
            List<String> acted = new ArrayList<>();
            // Enabling a unit that starts, and disabling one that stops, are part of the start and the stop.
            // systemd's reload of its units, which a restart drop-in among the files takes, is no daemon's action.
            services.log.stream()
                    .filter(l -> !l.startsWith("enable ") && !l.startsWith("disable ") && !l.equals("daemon-reload"))
                    .forEach(acted::add);
            if (commands.log().contains(List.of("scontrol", "reconfigure"))) {
                acted.add("reconfigure slurmctld");
            }
            return acted;
        }
    }

    @ParameterizedTest
    @MethodSource("changes")
    void thePreviewIsWhatTheStepsDo(SlurmSettings before, SlurmSettings after) {
        Map<String, NodeFacts> inv = inventory();
        Planner.Plans was = Planner.plan(before, inv, KEY);
        Planner.Plans will = Planner.plan(after, inv, KEY);
        Map<String, Machine> machines = new TreeMap<>();
        for (String node : inv.keySet()) {
            Machine m = Machine.fresh();
            m.apply(was.nodes().get(node));
            m.clearLogs();
            m.apply(will.nodes().get(node));
            machines.put(node, m);
        }
        boolean controllerReconfigured =
                machines.values().stream().anyMatch(m -> m.acted().contains("reconfigure slurmctld"));

        Map<String, NodeChange> shown =
                byNode(Preview.of(new SettingsDocument(1, before), after, Preview.Cluster.of(inv, Map.of())));
        for (var entry : machines.entrySet()) {
            String node = entry.getKey();
            Machine m = entry.getValue();
            NodeChange n = shown.get(node);
            List<FileChange> files = n == null ? List.of() : n.files();
            List<DaemonChange> daemons = n == null ? List.of() : n.daemons();
            assertEquals(
                    m.written(),
                    new TreeSet<>(files.stream().map(FileChange::path).toList()),
                    node + ": the files the preview shows are those the steps write");
            List<String> local = new ArrayList<>();
            for (DaemonChange d : daemons) {
                if (d.unit().equals("slurmd") && d.action() == Action.RECONFIGURE) {
                    assertTrue(
                            controllerReconfigured,
                            node + ": slurmd's reconfigure is the controller's scontrol reconfigure");
                    local.add("reread slurmd"); // and its own reread, which the controller's may come before
                } else {
                    local.add(d.action().name().toLowerCase() + " " + d.unit());
                }
            }
            assertEquals(new HashSet<>(m.acted()), new HashSet<>(local), node + ": the daemons' actions");
            assertEquals(m.acted().size(), local.size(), node);
        }
    }

    @Test
    void aDryRunOfSharedStorageShowsTheExportAndEveryMount() {
        SlurmSettings shared = with("shared", Map.of("path", "/shared", "server", "c0"));
        Map<String, NodeChange> nodes = byNode(preview(cluster(), shared));
        // The packages step runs first: the export's server, and the clients' mount.nfs, are installed where the
        // machine has not
        // said it has them.
        assertEquals(
                List.of("install nfs-ganesha, nfs-ganesha-vfs", "export /shared to c0, n1, n2"),
                nodes.get("c0").actions());
        assertEquals(
                List.of("install nfs-common", "mount c0:/shared at /shared (slurmd waits for it)"),
                nodes.get("n1").actions());
        assertEquals(
                List.of("install nfs-common", "mount c0:/shared at /shared (slurmd waits for it)"),
                nodes.get("n2").actions());
        assertFalse(nodes.containsKey("other"), "no role, no storage");
        Map<String, NodeChange> moved =
                byNode(preview(shared, with("shared", Map.of("path", "/shared", "nfs", "nas:/export"))));
        assertEquals(
                List.of("install nfs-common", "mount nas:/export at /shared", "stop exporting /shared"),
                moved.get("c0").actions(),
                "in the order the storage step does them; no slurmd on the controller to wait for it");
        assertEquals(
                List.of("mount nas:/export at /shared again, instead of c0:/shared"),
                moved.get("n1").actions());
    }

    @Test
    void aDryRunOfUsersShowsPamOnComputeNodesOnlyAndTheUsersEverywhere() {
        SlurmSettings users = with("users", "slurmlet");
        Map<String, NodeChange> nodes = byNode(preview(cluster(), users));
        assertTrue(
                nodes.get("n1")
                        .actions()
                        .contains("put pam_slurm_adopt into sshd's PAM stack once slurmd runs the new "
                                + "slurm.conf: users get in by ssh only while a job of theirs runs here"),
                nodes.get("n1").actions()::toString);
        assertTrue(nodes.get("n1")
                .actions()
                .contains("keep the cluster's accounts as Linux users here, their homes in /home"));
        assertEquals(
                List.of("keep the cluster's accounts as Linux users here, their homes in /home"),
                nodes.get("c0").actions(),
                "never PAM on the controller");
        Map<String, NodeChange> back = byNode(preview(users, cluster()));
        assertEquals(
                List.of(
                        "stop keeping the accounts' users: they and their files stay as they are",
                        "put sshd's PAM stack back as it was before slurmlet"),
                back.get("n2").actions(),
                "in the order the steps run");
    }

    @Test
    void aDryRunOfEnabledFalseSaysTheMountsGo() {
        SlurmSettings shared = with("shared", Map.of("path", "/shared", "server", "c0"));
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SettingsJson.STRICT.valueToTree(shared);
        tree.put("enabled", false);
        Map<String, NodeChange> nodes = byNode(preview(shared, SettingsJson.toSettings(tree)));
        assertEquals(
                List.of(
                        "unmount c0:/shared from /shared and remove its mount unit and slurmd's wait for it (first, so slurmd "
                                + "keeps running)"),
                nodes.get("n1").actions(),
                "what the agents do, said before it is done");
        assertEquals(List.of("stop exporting /shared"), nodes.get("c0").actions());
    }
}
