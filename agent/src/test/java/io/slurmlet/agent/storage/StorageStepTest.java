package io.slurmlet.agent.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.leader.plan.Sections;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.agent.system.linux.LinuxFiles;
import io.slurmlet.agent.system.linux.LinuxHostFiles;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage step on a folder that stands for /, with the real file ports and fake systemd. */
class StorageStepTest {

    @TempDir
    Path root;

    final FakeServices services = new FakeServices();
    final FakeCommands commands = new FakeCommands()
            .answerPrefix(List.of("install"), Commands.Result.ok(""))
            .answerPrefix(List.of("exportfs"), Commands.Result.ok(""))
            .answerPrefix(List.of("showmount"), Commands.Result.ok("/shared n1,n2\n"));
    StorageStep step;

    static final String CONF = "SlurmctldHost=n0\nNodeName=n1 CPUs=2 State=UNKNOWN\nNodeName=n2 CPUs=2 State=UNKNOWN\n";

    @BeforeEach
    void setUp() throws Exception {
        Files.createDirectories(root.resolve("etc/systemd/system"));
        step = new StorageStep(new LinuxFiles(), new LinuxHostFiles(root), services, commands, root);
    }

    /** The plan the planner makes for {@code node} from the settings' {@code shared}, slurm.conf naming n0, n1 and n2. */
    static NodePlan plan(String node, SharedStorage shared) {
        SlurmSettings s = new SlurmSettings(
                true, "lab", "n0", List.of("n1", "n2"), false, List.of(), "gpu", shared, "", false, null, Map.of());
        return NodePlan.of(node, Set.of(Role.COMPUTE))
                .withSlurm(Map.of("/etc/slurm/slurm.conf", CONF), List.of("slurmd"))
                .withStorage(Sections.storage(s, node, Set.of(Role.COMPUTE), List.of("n0", "n1", "n2")));
    }

    @Test
    void mountUnitsAreNamedAsSystemdEscapesThePath() {
        assertEquals("shared.mount", StorageDiff.unitName("/shared"));
        assertEquals("srv-shared\\x20data.mount", StorageDiff.unitName("/srv/shared data/"));
        assertEquals("a.b-.c.mount", StorageDiff.unitName("/a.b/.c"));
        assertEquals("\\x2ehidden.mount", StorageDiff.unitName("/.hidden"), "as systemd-escape --path prints them");
        assertEquals("data-x\\x2dy.mount", StorageDiff.unitName("/data/x-y"));
    }

    @Test
    void aServersExportIsMountedByAMountUnitAndSlurmdWaitsForItAndTwiceChangesNothing() throws Exception {
        Outcome o = step.apply(plan("n1", new SharedStorage("/shared", null, "n0")));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        String unit = Files.readString(root.resolve("etc/systemd/system/shared.mount"));
        assertTrue(unit.contains("What=n0:/shared\nWhere=/shared\nType=nfs\nOptions=_netdev,vers=3\n"), unit);
        assertTrue(unit.contains("After=network-online.target"));
        assertEquals(
                "# Written by slurmlet: the Slurm cluster's shared storage.\n[Unit]\nRequiresMountsFor=/shared\n",
                Files.readString(root.resolve("etc/systemd/system/slurmd.service.d/slurmlet-storage.conf")));
        assertEquals(
                List.of("daemon-reload", "enable shared.mount", "start shared.mount", "daemon-reload"), services.log);
        services.log.clear();
        assertEquals(
                Outcome.Kind.UNCHANGED,
                step.apply(plan("n1", new SharedStorage("/shared", null, "n0"))).kind());
        assertTrue(services.log.isEmpty(), services.log.toString());
    }

    @Test
    void storageNoLongerInTheSettingsIsUnmountedAndItsFilesRemoved() throws Exception {
        step.apply(plan("n1", new SharedStorage("/shared", "nas:/export/slurm", null)));
        assertTrue(Files.readString(root.resolve("etc/systemd/system/shared.mount"))
                .contains("What=nas:/export/slurm\n"));
        Files.writeString(root.resolve("etc/systemd/system/site.mount"), "[Mount]\nWhat=other\n");
        services.log.clear();
        Outcome o = step.apply(plan("n1", null));
        assertTrue(o.detail().contains("unmounted and removed shared.mount"), o.toString());
        assertTrue(services.log.contains("stop shared.mount"));
        assertFalse(Files.exists(root.resolve("etc/systemd/system/shared.mount")));
        assertFalse(Files.exists(root.resolve("etc/systemd/system/slurmd.service.d/slurmlet-storage.conf")));
        assertTrue(
                Files.exists(root.resolve("etc/systemd/system/site.mount")),
                "a mount unit slurmlet did not write is left alone");
    }

    @Test
    void aPathAloneIsOnlyCheckedAndTheMachineIsNotReadyUntilSomethingIsMountedThere() throws Exception {
        Outcome missing = step.apply(plan("n1", new SharedStorage("/lustre", null, null)));
        assertTrue(missing.failed());
        assertTrue(missing.detail().startsWith("nothing is mounted at /lustre"), missing.detail());
        Files.createDirectories(root.resolve("proc/self"));
        Files.writeString(
                root.resolve("proc/self/mountinfo"),
                "36 25 0:32 / /lustre rw,relatime shared:1 - lustre 10.0.0.1@tcp:/fs rw\n");
        Outcome there = step.apply(plan("n1", new SharedStorage("/lustre", null, null)));
        assertFalse(there.failed(), there.toString());
        assertTrue(there.detail().contains("/lustre is mounted (10.0.0.1@tcp:/fs, lustre)"), there.detail());
    }

    @Test
    void aMachineJoiningTheExportReloadsGaneshaAndAnyOtherChangeRestartsIt() throws Exception {
        Files.createDirectories(root.resolve("var/lib/dpkg"));
        Files.writeString(
                root.resolve("var/lib/dpkg/status"),
                "Package: nfs-ganesha\nStatus: install ok installed\nVersion: 6.5-5\n\n");
        commands.answer(List.of("systemctl", "reload-or-restart", "nfs-ganesha"), Commands.Result.ok(""));
        step.apply(plan("n0", new SharedStorage("/shared", null, "n0")));
        assertTrue(Files.readString(root.resolve("etc/ganesha/ganesha.conf")).contains("Clients = n0, n1, n2;"));
        services.log.clear();

        SlurmSettings s = new SlurmSettings(
                true,
                "lab",
                "n0",
                List.of("n1", "n2", "n3"),
                false,
                List.of(),
                "gpu",
                new SharedStorage("/shared", null, "n0"),
                "",
                false,
                null,
                Map.of());
        NodePlan joined = NodePlan.of("n0", Set.of(Role.COMPUTE))
                .withSlurm(Map.of("/etc/slurm/slurm.conf", CONF), List.of("slurmd"))
                .withStorage(Sections.storage(s, "n0", Set.of(Role.COMPUTE), List.of("n0", "n1", "n2", "n3")));
        Outcome o = step.apply(joined);
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertTrue(Files.readString(root.resolve("etc/ganesha/ganesha.conf")).contains("Clients = n0, n1, n2, n3;"));
        assertTrue(
                commands.log().contains(List.of("systemctl", "reload-or-restart", "nfs-ganesha")),
                commands.log().toString());
        assertFalse(services.log.contains("restart nfs-ganesha"), "the clients' I/O does not pause: " + services.log);

        assertTrue(StorageStep.sameButClients("A\n    Clients = n0, n1;\nB\n", "A\n    Clients = n0, n1, n3;\nB\n"));
        assertFalse(StorageStep.sameButClients(
                "A\n    Clients = n0;\n    Path = /a;\n", "A\n    Clients = n0;\n    Path = /b;\n"));
    }

    @Test
    void ganeshaSixMayGoOnWithoutTheIoFlusherFlagAndFourIsNotToldAKeyItLacks() throws Exception {
        NodePlan server = plan("n0", new SharedStorage("/shared", null, "n0"));
        Files.createDirectories(root.resolve("var/lib/dpkg"));
        Files.writeString(
                root.resolve("var/lib/dpkg/status"),
                "Package: rpcbind\nVersion: 1.2.7-1\n\n"
                        + "Package: nfs-ganesha\nStatus: install ok installed\nVersion: 6.5-5\n\n");
        step.apply(server);
        String six = Files.readString(root.resolve("etc/ganesha/ganesha.conf"));
        assertTrue(six.contains("    Enable_RQUOTA = false;\n    allow_set_io_flusher_fail = true;\n}\n"), six);

        Files.writeString(
                root.resolve("var/lib/dpkg/status"),
                "Package: nfs-ganesha\nStatus: install ok installed\nVersion: 4.3-2\n");
        Outcome o = step.apply(server);
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertTrue(services.log.contains("restart nfs-ganesha"), services.log.toString());
        String four = Files.readString(root.resolve("etc/ganesha/ganesha.conf"));
        assertFalse(four.contains("flusher"), four);
    }

    @Test
    void theServerExportsWithGaneshaToTheClustersMachinesOnly() throws Exception {
        NodePlan server = plan("n0", new SharedStorage("/shared", null, "n0"));
        Outcome o = step.apply(server);
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        String conf = Files.readString(root.resolve("etc/ganesha/ganesha.conf"));
        assertTrue(
                conf.contains("Path = /shared;")
                        && conf.contains("Clients = n0, n1, n2;")
                        && conf.contains("Squash = No_Root_Squash;"),
                conf);
        assertTrue(services.log.contains("start nfs-ganesha"));
        assertEquals(List.of(List.of("install", "-d", "-m", "0755", "/shared", "/shared/home")), commands.log());
        services.log.clear();
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(server).kind());
        assertTrue(services.log.isEmpty());

        Outcome moved = step.apply(plan("n0", new SharedStorage("/shared", null, "n1")));
        assertTrue(
                moved.detail().contains("stopped exporting the shared storage (no longer shared.server)"),
                moved.detail());
        assertTrue(services.log.contains("stop nfs-ganesha"));
        assertFalse(Files.exists(root.resolve("etc/ganesha/ganesha.conf")));
    }

    @Test
    void anExportThatDoesNotAnswerIsReportedWithTheKeyAndTheFix() {
        services.failing("shared.mount");
        Outcome o = step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)));
        assertTrue(o.failed());
        assertTrue(
                o.detail().startsWith("shared.nfs: the export nas:/export could not be mounted at /shared ("),
                o.detail());
        assertTrue(
                o.detail().endsWith("check that it answers and exports /shared to this machine; slurmd waits for it"),
                o.detail());
    }

    @Test
    void whereTheKernelServesNfsItsServerExportsAnExportsFileOfSlurmletsOwn() throws Exception {
        Files.createDirectories(root.resolve("proc"));
        Files.writeString(root.resolve("proc/filesystems"), "nodev\tsysfs\nnodev\ttmpfs\n\text4\nnodev\tnfsd\n");
        Outcome o = step.apply(plan("n0", new SharedStorage("/shared", null, "n0")));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertEquals(
                "# Written by slurmlet: the Slurm cluster's shared storage.\n/shared n0(rw,sync,no_subtree_check,no_root_squash) "
                        + "n1(rw,sync,no_subtree_check,no_root_squash) n2(rw,sync,no_subtree_check,no_root_squash)\n",
                Files.readString(root.resolve("etc/exports.d/slurmlet.exports")));
        assertTrue(services.log.contains("start nfs-server"), services.log.toString());
        assertFalse(Files.exists(root.resolve("etc/ganesha/ganesha.conf")));
        step.apply(plan("n0", null));
        assertFalse(Files.exists(root.resolve("etc/exports.d/slurmlet.exports")));
        assertTrue(commands.log().contains(List.of("exportfs", "-ra")));
    }

    /** A slurmstepd of {@code job} runs here as {@code pid}, as /proc shows it. */
    void stepOf(int pid, String job) throws Exception {
        Files.createDirectories(root.resolve("proc/" + pid));
        Files.writeString(root.resolve("proc/" + pid + "/comm"), "slurmstepd\n");
        Files.writeString(root.resolve("proc/" + pid + "/cmdline"), "slurmstepd: [" + job + ".0]\0");
        Files.writeString(root.resolve("proc/" + pid + "/status"), "Name:\tslurmstepd\nUid:\t0\t0\t0\t0\n");
    }

    @Test
    void aMountIsNeitherRemovedNorMovedWhileAJobRunsHereAndSlurmdIsNeverStoppedWithIt() throws Exception {
        step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)));
        stepOf(4242, "12");
        Files.createDirectories(root.resolve("proc/77"));
        Files.writeString(root.resolve("proc/77/comm"), "sshd\n");
        services.log.clear();
        Outcome moved = step.apply(plan("n1", new SharedStorage("/shared", "nas:/other", null)));
        assertEquals(
                Outcome.unchanged(
                        "storage",
                        "mounting nas:/other at /shared instead of nas:/export waits for job 12 running here "
                                + "to end"),
                moved);
        assertTrue(services.log.isEmpty(), services.log.toString());

        Outcome gone = step.apply(plan("n1", null));
        assertEquals(
                Outcome.changed(
                        "storage",
                        "slurmd no longer waits for shared storage; unmounting /shared waits for job 12 "
                                + "running here to end"),
                gone);
        assertEquals(List.of("daemon-reload"), services.log, "the mount stays; slurmd's wait for it goes");
        assertTrue(Files.exists(root.resolve("etc/systemd/system/shared.mount")));

        Files.delete(root.resolve("proc/4242/comm"));
        Files.delete(root.resolve("proc/4242/cmdline"));
        Files.delete(root.resolve("proc/4242/status"));
        services.log.clear();
        assertEquals(Outcome.changed("storage", "unmounted and removed shared.mount"), step.apply(plan("n1", null)));
        assertEquals(List.of("stop shared.mount", "daemon-reload"), services.log);
    }

    @Test
    void slurmdsWaitForAMountGoesBeforeTheMountSoStoppingItDoesNotStopSlurmd() throws Exception {
        step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)));
        services.log.clear();
        Outcome o = step.apply(plan("n1", null));
        assertEquals(
                Outcome.changed(
                        "storage", "slurmd no longer waits for shared storage; unmounted and removed shared.mount"),
                o);
        assertEquals(
                List.of("daemon-reload", "stop shared.mount", "daemon-reload"),
                services.log,
                "the drop-in's removal is read by systemd before the mount stops");
    }

    @Test
    void aMountThatGoesFromThePathSlurmdKeepsWaitingForIsUnmountedWithSlurmdsWaitLiftedAroundIt() throws Exception {
        step.apply(plan("n1", new SharedStorage("/shared", null, "n0")));
        services.log.clear();
        Outcome o = step.apply(plan("n1", new SharedStorage("/shared", null, null)));
        assertEquals(
                List.of("daemon-reload", "stop shared.mount", "daemon-reload", "daemon-reload"),
                services.log,
                "the drop-in goes (and is read) before the mount stops, and comes back after");
        assertTrue(
                o.failed() && o.detail().startsWith("nothing is mounted at /shared"),
                "the site has not mounted it yet: " + o);
        assertEquals(
                "# Written by slurmlet: the Slurm cluster's shared storage.\n[Unit]\nRequiresMountsFor=/shared\n",
                Files.readString(root.resolve("etc/systemd/system/slurmd.service.d/slurmlet-storage.conf")));
    }

    @Test
    void aServersExportIsMountedOnlyOnceTheServerListsItAndAServerSilentPastTheGraceFailsTheStep() throws Exception {
        java.time.Instant[] now = {java.time.Instant.parse("2026-12-03T10:00:00Z")};
        java.time.Clock clock = new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return now[0];
            }
        };
        FakeCommands silent = new FakeCommands()
                .answerPrefix(
                        List.of("showmount"), new Commands.Result(1, "", "clnt_create: RPC: Program not registered\n"));
        step = new StorageStep(new LinuxFiles(), new LinuxHostFiles(root), services, silent, root, clock);
        NodePlan client = plan("n1", new SharedStorage("/shared", null, "n0"));

        Outcome waits = step.apply(client);
        assertEquals(
                Outcome.unchanged(
                        "storage",
                        "mounting n0:/shared at /shared waits for n0 to export it (showmount -e n0: clnt_create: "
                                + "RPC: Program not registered)"),
                waits,
                "the server's own pass has not exported it yet: no failure");
        assertEquals(
                List.of(
                        "mounting n0:/shared at /shared waits for n0 to export it (showmount -e n0: clnt_create: RPC: Program not "
                                + "registered)"),
                step.waiting());
        assertEquals(List.of(), services.log, "no unit written, nothing started");
        assertFalse(Files.exists(root.resolve("etc/systemd/system/shared.mount")));

        silent.answerPrefix(List.of("showmount"), Commands.Result.ok("/home    *\n/shared  10.0.0.1/32,10.0.0.2/32\n"));
        now[0] = now[0].plusSeconds(20);
        Outcome mounted = step.apply(client);
        assertEquals(Outcome.Kind.CHANGED, mounted.kind(), mounted.toString());
        assertTrue(services.log.contains("start shared.mount"), services.log.toString());
        assertEquals(List.of(), step.waiting());

        // A server that never exports: waited for five minutes, then the mount is tried and its failure said.
        step = new StorageStep(new LinuxFiles(), new LinuxHostFiles(root), services, silent, root, clock);
        silent.answerPrefix(List.of("showmount"), Commands.Result.ok("/home    *\n"));
        NodePlan other = plan("n1", new SharedStorage("/shared", null, "n2"));
        services.log.clear();
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(other).kind());
        assertTrue(
                step.waiting()
                        .get(0)
                        .contains("waits for n2 to export it (showmount -e n2: it does not list /shared yet)"),
                step.waiting().toString());
        assertTrue(
                Files.readString(root.resolve("etc/systemd/system/shared.mount"))
                        .contains("What=n0:/shared\n"),
                "the old mount stays while the new one waits");
        now[0] = now[0].plus(StorageStep.SERVER_GRACE).plusSeconds(1);
        Outcome tried = step.apply(other);
        assertTrue(services.log.contains("restart shared.mount"), "past the grace the mount is tried: " + services.log);
        assertEquals(List.of(), step.waiting(), tried.toString());
    }

    @Test
    void aMachineThatBecomesTheServerWhileItStillMountsTheSitesExportUnderAJobExportsOnlyOnceThatMountIsGone()
            throws Exception {
        step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)));
        stepOf(4242, "12");
        services.log.clear();
        NodePlan server = plan("n1", new SharedStorage("/shared", null, "n1"));
        Outcome waits = step.apply(server);
        assertEquals(
                List.of(
                        "unmounting /shared waits for job 12 running here to end",
                        "exporting /shared waits for nas:/export to be "
                                + "unmounted from it, once job 12 running here has ended"),
                step.waiting(),
                waits.toString());
        assertFalse(waits.failed(), waits.toString());
        assertFalse(
                Files.exists(root.resolve("etc/ganesha/ganesha.conf")),
                "the site's export is not served again from under its mount");
        assertFalse(services.log.contains("start nfs-ganesha"), services.log.toString());

        for (String f : List.of("comm", "cmdline", "status")) {
            Files.delete(root.resolve("proc/4242/" + f));
        }
        services.log.clear();
        Outcome exported = step.apply(server);
        assertTrue(
                exported.detail().contains("unmounted and removed shared.mount")
                        && exported.detail().contains("exported /shared"),
                exported.toString());
        assertTrue(
                services.log.indexOf("stop shared.mount") < services.log.indexOf("start nfs-ganesha"),
                services.log.toString());
    }

    @Test
    void aFileSystemTheSiteMountedAtThePathIsNeverUnmountedAndTheStepSaysWhatToDo() throws Exception {
        services.running("shared.mount");
        Files.createDirectories(root.resolve("proc/self"));
        Files.writeString(
                root.resolve("proc/self/mountinfo"), "22 1 8:17 / /shared rw,relatime shared:5 - ext4 /dev/sdb1 rw\n");
        Outcome o = step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)));
        assertTrue(o.failed(), o.toString());
        assertEquals(
                "/dev/sdb1, ext4 is already mounted at /shared, not by slurmlet (/etc/fstab, or by hand): slurmlet does not unmount "
                        + "what it did not mount; unmount it there (and remove it from /etc/fstab), or set shared.path to a free folder, and the next "
                        + "pass mounts nas:/export",
                o.detail());
        assertFalse(
                services.log.stream().anyMatch(l -> l.contains("shared.mount") && !l.startsWith("is-")),
                services.log.toString());
        assertFalse(Files.exists(root.resolve("etc/systemd/system/shared.mount")));
    }

    @Test
    void aMountMovedToAnotherExportIsRemountedWithSlurmdsWaitLiftedAroundItSoSlurmdKeepsRunning() throws Exception {
        step.apply(plan("n1", new SharedStorage("/shared", null, "n0")));
        services.log.clear();
        Outcome o = step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)));
        assertEquals(
                Outcome.changed(
                        "storage", "wrote shared.mount; mounted nas:/export at /shared again (its mount unit changed)"),
                o);
        assertEquals(
                List.of("daemon-reload", "restart shared.mount", "daemon-reload"),
                services.log,
                "the drop-in goes (and is read) before the remount, which would otherwise stop slurmd, and comes back after");
        assertEquals(
                "# Written by slurmlet: the Slurm cluster's shared storage.\n[Unit]\nRequiresMountsFor=/shared\n",
                Files.readString(root.resolve("etc/systemd/system/slurmd.service.d/slurmlet-storage.conf")));
        services.log.clear();
        assertEquals(
                Outcome.Kind.UNCHANGED,
                step.apply(plan("n1", new SharedStorage("/shared", "nas:/export", null)))
                        .kind());
        assertEquals(List.of(), services.log);
    }
}
