package io.slurmlet.agent.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeHostFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmStepTest {

    private static final MungeKey KEY = MungeKey.of(new byte[64]);
    private final FakeFiles files = new FakeFiles();
    private final FakeServices services = new FakeServices();
    private final FakeCommands commands = new FakeCommands()
            .answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""))
            .answerPrefix(List.of("squeue"), Commands.Result.ok(""));
    private final SlurmStep step = new SlurmStep(
            files, services, commands, Path.of("/"), Path.of("/var/lib/slurmlet"), new FakeHostFiles(new FakeFiles()));

    static NodePlan plan(String node, SlurmSettings s) {
        Map<String, NodeFacts> inv = new HashMap<>();
        for (String n : List.of("c0", "n1", "n2")) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("24.11.5")
                            .build());
        }
        return Planner.plan(s, inv, KEY).nodes().get(node);
    }

    static SlurmSettings settings(String partition, Map<String, String> site) {
        return new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), partition, null, null, false, null, site);
    }

    @Test
    void aRunningDaemonWithoutItsRestartDropInGetsItWithADaemonReloadAndNoRestart() throws Exception {
        NodePlan plan = plan("c0", settings("gpu", Map.of()));
        step.apply(plan);
        Path dropIn = Path.of("/etc/systemd/system/slurmctld.service.d/10-slurmlet-restart.conf");
        assertTrue(
                new String(files.stat(dropIn).orElseThrow().content()).contains("Restart=on-failure\nRestartSec=1s\n"));
        files.delete(dropIn); // an agent of before this drop-in, upgraded; or removed by hand
        services.log.clear();
        files.log.clear();
        Outcome o = step.apply(plan);
        assertEquals(
                Outcome.changed("slurm", "systemd starts slurmctld again should it crash (Restart=on-failure)"), o);
        assertEquals(
                List.of("daemon-reload"),
                services.log,
                "no restart, no reconfigure: systemd reads it for the running daemon");
        assertFalse(commands.log().contains(List.of("scontrol", "reconfigure")));
        services.log.clear();
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan).kind(), "written once");
        assertEquals(List.of(), services.log);
    }

    @Test
    void firstApplyWritesTheFilesAndStartsTheDaemons() {
        Outcome o = step.apply(plan("c0", settings("gpu", Map.of())));
        assertEquals(
                Outcome.changed(
                        "slurm",
                        "wrote cgroup.conf, gres.conf, plugstack.conf, slurm.conf; systemd starts slurmctld "
                                + "again should it crash (Restart=on-failure); enabled slurmctld; started slurmctld"),
                o);
        assertEquals(5, files.log.size());
        assertTrue(files.log.contains("write /etc/slurm/slurm.conf rw-r--r-- root:root"), files.log.toString());
        assertTrue(
                files.log.contains(
                        "write /etc/systemd/system/slurmctld.service.d/10-slurmlet-restart.conf rw-r--r-- root:root"),
                files.log.toString());
        assertEquals(
                List.of("daemon-reload", "enable slurmctld", "start slurmctld"),
                services.log,
                "systemd reads the drop-in before the start");
    }

    @Test
    void renamingTheClusterKeepsTheNameInSlurmctldsStateInStepSoItStartsAgain() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        assertTrue(
                files.log.stream().noneMatch(l -> l.contains("clustername")), "slurmctld writes it at its first start");
        // slurmctld started and wrote it, as it does.
        files.put(
                Path.of("/var/lib/slurm/slurmctld/clustername"), "lab|1605".getBytes(), "rw-r--r--", "slurm", "slurm");
        files.log.clear();
        commands.clearLog();
        assertEquals(
                Outcome.unchanged("slurm", "Slurm's files match and its daemons run"),
                step.apply(plan("c0", settings("gpu", Map.of()))));

        SlurmSettings renamed = new SlurmSettings(
                true,
                "prod",
                "c0",
                List.of("n1", "n2"),
                false,
                List.of("n1"),
                "gpu",
                null,
                null,
                false,
                null,
                Map.of());
        Outcome o = step.apply(plan("c0", renamed));
        assertEquals(Outcome.changed("slurm", "wrote slurm.conf, clustername; scontrol reconfigure"), o);
        assertTrue(
                files.log.contains("write /var/lib/slurm/slurmctld/clustername rw-r--r-- slurm:slurm"),
                files.log.toString());
        assertEquals(
                "prod|1605",
                new String(files.stat(Path.of("/var/lib/slurm/slurmctld/clustername"))
                        .orElseThrow()
                        .content()),
                "the name, and 24.11's cluster id kept");
        assertEquals(
                List.of(List.of("scontrol", "reconfigure")),
                commands.log(),
                "no restart: a reconfigure takes the name");
    }

    /**
     * A plan made from facts older than the machine (one reimaged, or whose pyxis was removed) names a
     * plugin the machine lacks: slurmd would not start with that plugstack.conf, so nothing of Slurm is
     * written or started here until the plugin is (the containers step builds it) or the plan leaves it
     * out. The step waits, it does not fail.
     */
    @Test
    void aPlugstackRequiringAPluginThisMachineLacksWaitsAndWritesAndStartsNothingUntilItIsHere() {
        Map<String, NodeFacts> inv = new HashMap<>();
        for (String n : List.of("c0", "n1", "n2")) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("24.11.5")
                            .build()
                            .withContainers(new io.slurmlet.model.facts.ContainerFacts(
                                    "4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true)));
        }
        SlurmSettings containers = new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), "gpu", null, null, true, null, Map.of());
        NodePlan plan = Planner.plan(containers, inv, KEY).nodes().get("n1");
        assertTrue(plan.slurm().files().stream()
                .anyMatch(f -> f.content().contains("required /usr/local/lib/slurm/spank_pyxis.so")));

        Outcome waiting = step.apply(plan);
        assertEquals(Outcome.Kind.UNCHANGED, waiting.kind(), waiting.detail());
        assertEquals(List.of(), files.log, "no file written");
        assertEquals(List.of(), services.log, "slurmd not started");
        assertEquals(List.of(waitingFor("/usr/local/lib/slurm/spank_pyxis.so")), step.waiting());
        assertTrue(step.waitsForPlugins(), "the daemon watch leaves slurmd alone meanwhile");

        byte[] plugin = "ELF".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        files.put(Path.of("/usr/local/lib/slurm/spank_pyxis.so"), plugin, "rw-r--r--", "root", "root");
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan).kind());
        assertEquals(
                List.of(waitingFor("/usr/local/lib/slurm/spank_pyxis.so (not the one slurmlet built and recorded in "
                        + "/usr/local/lib/slurmlet/pyxis.json)")),
                step.waiting(),
                "a plugin of no known build is not loaded");

        // Built for 22.05, on a machine whose Slurm was upgraded to 24.11 in place: Slurm refuses it.
        commands.answer(List.of("slurmd", "-V"), Commands.Result.ok("slurm-wlm 24.11.5\n"));
        stamp(plugin, "22.05.8");
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan).kind());
        assertEquals(
                List.of(waitingFor(
                        "/usr/local/lib/slurm/spank_pyxis.so (built for Slurm 22.05.8; this machine's is 24.11.5)")),
                step.waiting());
        assertEquals(List.of(), files.log, "still no file written");
        assertEquals(List.of(), services.log, "still no slurmd started");

        stamp(plugin, "24.11.5"); // the containers step built it again for this Slurm
        Outcome applied = step.apply(plan);
        assertEquals(Outcome.Kind.CHANGED, applied.kind(), applied.detail());
        assertTrue(services.log.contains("start slurmd"), services.log.toString());
        assertEquals(List.of(), step.waiting());
        assertEquals(false, step.waitsForPlugins());
    }

    private static String waitingFor(String plugins) {
        return "Slurm's files and daemons here wait: plugstack.conf is to require " + plugins
                + ", which this machine does not have "
                + "as its Slurm loads it (slurmd would not start with it, and every job here would fail); they follow once it is here "
                + "or the leader's plan leaves it out";
    }

    /** What the containers step records beside the pyxis it built. */
    private void stamp(byte[] plugin, String slurm) {
        String json = "{\"pyxis\": \"0.24.0\", \"slurm\": \"%s\", \"source_sha256\": \"%s\", \"sha256\": \"%s\"}"
                .formatted(slurm, "e".repeat(64), io.slurmlet.agent.reconcile.ManagedFiles.sha256(plugin));
        files.put(
                Path.of("/usr/local/lib/slurmlet/pyxis.json"),
                json.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "rw-r--r--",
                "root",
                "root");
        files.log.clear();
    }

    @Test
    void secondApplyWritesNothing() {
        NodePlan plan = plan("n1", settings("gpu", Map.of()));
        step.apply(plan);
        files.log.clear();
        services.log.clear();
        commands.clearLog();
        assertEquals(Outcome.unchanged("slurm", "Slurm's files match and its daemons run"), step.apply(plan));
        assertTrue(
                files.log.isEmpty() && services.log.isEmpty() && commands.log().isEmpty());
    }

    /**
     * Under auth=slurm the plan's keys are written as slurm.jwks, the SlurmUser's and 0600 (Slurm
     * refuses one others may read), reported by generation and never by content; a chmod by hand is
     * written back; new keys alone are a reconfigure on the controller and a reread on a node, as
     * was measured (keys are read at a start or a re-exec only).
     */
    @Test
    void slurmKeysAreWrittenAsTheSlurmUsersSecretAndNewKeysAreAReconfigure() {
        io.slurmlet.model.plan.SlurmJwks first = io.slurmlet.model.plan.SlurmJwks.first("slurmlet-1");
        NodePlan plain = plan("c0", settings("gpu", Map.of()));
        NodePlan plan = plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(1, first)));
        step.apply(plan);
        Path jwks = Path.of(SlurmDiff.JWKS);
        assertTrue(files.log.contains("write /etc/slurm/slurm.jwks rw------- slurm:slurm"), files.log.toString());
        assertEquals(first.text(), new String(files.stat(jwks).orElseThrow().content()));
        var report = step.reported().orElseThrow();
        assertEquals(1L, report.jwks().file());
        var reported = report.files().stream()
                .filter(f -> f.path().equals(SlurmDiff.JWKS))
                .findFirst()
                .orElseThrow();
        assertEquals("", reported.digest(), "a secret is reported by no digest");
        assertEquals("", reported.text());

        files.put(jwks, first.bytes(), "rw-r--r--", "root", "root"); // by hand
        files.log.clear();
        commands.clearLog();
        assertEquals(Outcome.Kind.CHANGED, step.apply(plan).kind());
        assertEquals(List.of("write /etc/slurm/slurm.jwks rw------- slurm:slurm"), files.log);
        assertFalse(commands.log().contains(List.of("scontrol", "reconfigure")), "the same keys: nothing to reread");
        assertEquals(1L, step.reported().orElseThrow().jwks().file(), "held again");

        io.slurmlet.model.plan.SlurmJwks added = first.withNewKey("slurmlet-2");
        services.log.clear();
        commands.clearLog();
        Outcome o = step.apply(
                plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(2, added))));
        assertEquals(Outcome.changed("slurm", "wrote slurm.jwks; scontrol reconfigure"), o);
        assertTrue(services.log.isEmpty(), "no restart: " + services.log);
        assertEquals(2L, step.reported().orElseThrow().jwks().file());
        String said = o + " " + step.reported().orElseThrow() + " " + files.log;
        for (com.fasterxml.jackson.databind.JsonNode key :
                io.slurmlet.model.api.SettingsJson.readObject(added.bytes()).path("keys")) {
            assertFalse(said.contains(key.path("k").asText()), "no key in what the step says or reports");
        }

        step.apply(plain);
        assertEquals(
                io.slurmlet.model.observed.SlurmSeen.JwksSeen.NONE,
                step.reported().orElseThrow().jwks(),
                "under munge: no keys held, and still a jwks report (an agent that can hold them)");
    }

    /**
     * Which generation of the keys each daemon loaded: its main PID is noted right after the file is
     * written, and a daemon that runs with another since (started, restarted, re-executed on the
     * reread) loaded it. One whose re-execution fails runs on with its old keys: the step says so and
     * waits (looks again in seconds), and the report keeps the generation it did load.
     */
    @Test
    void eachDaemonsLoadedKeysAreTheFilesItsProcessStartedAfter() {
        FakeServices node = new FakeServices();
        SlurmStep onNode = new SlurmStep(
                new FakeFiles(),
                node,
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        NodePlan plain = plan("n1", settings("gpu", Map.of()));
        io.slurmlet.model.plan.SlurmJwks keys = io.slurmlet.model.plan.SlurmJwks.first("slurmlet-1");
        onNode.apply(plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(1, keys))));
        Outcome settled = onNode.apply(
                plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(1, keys))));
        assertEquals(Outcome.unchanged("slurm", "Slurm's files match and its daemons run"), settled);
        assertEquals(
                Map.of("slurmd", 1L), onNode.reported().orElseThrow().jwks().loaded(), "started after the write");

        keys = keys.withNewKey("slurmlet-2");
        NodePlan second = plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(2, keys)));
        assertEquals(Outcome.changed("slurm", "wrote slurm.jwks"), onNode.apply(second));
        assertTrue(node.log.contains("reread slurmd"), node.log.toString());
        assertEquals(Outcome.Kind.UNCHANGED, onNode.apply(second).kind());
        assertEquals(
                Map.of("slurmd", 2L), onNode.reported().orElseThrow().jwks().loaded(), "re-executed on the reread");

        // The controller's reconfigure began an instant before this machine wrote generation 3, and systemd learnt the
        // new
        // PID only after the write: that process read generation 2's file, and does not count.
        keys = keys.withNewKey("slurmlet-3");
        NodePlan late = plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(3, keys)));
        node.reexecFails("slurmd");
        onNode.apply(late);
        node.reexecutedBefore("slurmd");
        assertTrue(onNode.apply(late).detail().contains("slurmd has not loaded slurm.jwks generation 3 yet"));
        assertEquals(
                Map.of("slurmd", 2L), onNode.reported().orElseThrow().jwks().loaded(), "started before the write");
        node.reexecuted("slurmd"); // the reread's own re-execution, after the write
        onNode.apply(late);
        assertEquals(
                Map.of("slurmd", 3L), onNode.reported().orElseThrow().jwks().loaded());

        node.reexecFails("slurmd"); // a file its Slurm refuses: the old process runs on
        keys = keys.signingWith("slurmlet-3");
        NodePlan third = plain.withSlurmKeys(java.util.Optional.of(new io.slurmlet.model.plan.SlurmAuthKeys(4, keys)));
        onNode.apply(third);
        Outcome waits = onNode.apply(third);
        assertTrue(
                waits.detail()
                        .contains(
                                "slurmd has not loaded slurm.jwks generation 4 yet (it runs with generation 3's keys"),
                waits.toString());
        assertEquals(
                Map.of("slurmd", 3L), onNode.reported().orElseThrow().jwks().loaded());
        assertEquals(4L, onNode.reported().orElseThrow().jwks().file(), "the file holds 4");

        node.restartedByHand("slurmd");
        assertEquals(Outcome.unchanged("slurm", "Slurm's files match and its daemons run"), onNode.apply(third));
        assertEquals(
                Map.of("slurmd", 4L), onNode.reported().orElseThrow().jwks().loaded(), "restarted: it read the file");
    }

    @Test
    void renamingThePartitionIsAReconfigureIssuedByTheControllerAndNoRestart() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        services.log.clear();
        Outcome o = step.apply(plan("c0", settings("batch", Map.of())));
        assertEquals(Outcome.changed("slurm", "wrote slurm.conf; scontrol reconfigure"), o);
        assertTrue(services.log.isEmpty(), services.log.toString());
        assertEquals(
                List.of(
                        List.of("squeue", "-h", "-p", "gpu", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i"),
                        List.of("scontrol", "reconfigure")),
                commands.log(),
                "the controller asks slurmctld for the jobs of the partition that goes, then reconfigures");

        FakeServices nodeServices = new FakeServices();
        SlurmStep onNode = new SlurmStep(
                new FakeFiles(),
                nodeServices,
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        onNode.apply(plan("n1", settings("gpu", Map.of())));
        nodeServices.log.clear();
        commands.clearLog();
        assertEquals(
                Outcome.changed("slurm", "wrote slurm.conf"), onNode.apply(plan("n1", settings("batch", Map.of()))));
        // It rereads it itself too: the controller's reconfigure may come before this agent wrote the file.
        assertEquals(
                List.of("reread slurmd"),
                nodeServices.log,
                "a node takes the new file, and has its running slurmd reread it");
        assertTrue(commands.log().isEmpty(), commands.log().toString());
    }

    @Test
    void theControllerKeepsAPartitionThatWouldGoWhileAJobIsInItAndTakesTheRenameOnceItHasEnded() {
        FakeCommands busy = new FakeCommands()
                .answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""))
                .answer(
                        List.of("squeue", "-h", "-p", "gpu", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i"),
                        Commands.Result.ok("15\n16\n"));
        SlurmStep controller = new SlurmStep(
                files, services, busy, Path.of("/"), Path.of("/var/lib/slurmlet"), new FakeHostFiles(new FakeFiles()));
        controller.apply(plan("c0", settings("gpu", Map.of())));
        String before = new String(
                files.stat(Path.of("/etc/slurm/slurm.conf")).orElseThrow().content());
        busy.clearLog();
        Outcome held = controller.apply(plan("c0", settings("batch", Map.of())));
        assertEquals(
                Outcome.unchanged(
                        "slurm",
                        "the partition gpu leaves slurm.conf here once no job is in it (15, 16): "
                                + "Slurm ends the jobs of a partition that goes"),
                held);
        assertEquals(
                before,
                new String(files.stat(Path.of("/etc/slurm/slurm.conf"))
                        .orElseThrow()
                        .content()),
                "slurm.conf kept");
        assertTrue(busy.log().stream().noneMatch(a -> a.get(0).equals("scontrol")), "no reconfigure: " + busy.log());

        busy.answer(
                List.of("squeue", "-h", "-p", "gpu", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i"),
                new Commands.Result(
                        1, "", "slurm_load_jobs error: Unable to contact slurm controller (connect failure)"));
        assertTrue(
                controller
                        .apply(plan("c0", settings("batch", Map.of())))
                        .detail()
                        .contains("its jobs cannot be asked for"),
                "not knowing is not none");
        busy.answer(
                List.of("squeue", "-h", "-p", "gpu", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i"),
                Commands.Result.ok(""));
        assertEquals(
                Outcome.changed("slurm", "wrote slurm.conf; scontrol reconfigure"),
                controller.apply(plan("c0", settings("batch", Map.of()))));
        assertTrue(new String(files.stat(Path.of("/etc/slurm/slurm.conf"))
                        .orElseThrow()
                        .content())
                .contains("PartitionName=batch"));
    }

    /**
     * With job_submit/all_partitions (the memory classes'), every job names every partition, and a
     * running one shows only the partition it runs in: a partition that goes waits for every job.
     */
    @Test
    void withEveryJobSentToEveryPartitionAPartitionThatWouldGoWaitsForEveryJob() {
        List<String> everyJob = List.of("squeue", "-h", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i");
        FakeCommands busy = new FakeCommands()
                .answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""))
                .answer(everyJob, Commands.Result.ok("17\n"));
        SlurmStep controller = new SlurmStep(
                files, services, busy, Path.of("/"), Path.of("/var/lib/slurmlet"), new FakeHostFiles(new FakeFiles()));
        Map<String, String> site = Map.of("JobSubmitPlugins", "all_partitions");
        controller.apply(plan("c0", settings("gpu", site)));
        busy.clearLog();
        assertEquals(
                Outcome.unchanged(
                        "slurm",
                        "the partition gpu leaves slurm.conf here once no job is in it (17): "
                                + "Slurm ends the jobs of a partition that goes"),
                controller.apply(plan("c0", settings("batch", site))));
        assertEquals(List.of(everyJob), busy.log(), "every job is asked for, not only those squeue shows in gpu");
        busy.answer(everyJob, Commands.Result.ok(""));
        assertEquals(
                Outcome.changed("slurm", "wrote slurm.conf; scontrol reconfigure"),
                controller.apply(plan("c0", settings("batch", site))));
    }

    /** The look at the jobs slurmctld is launching, before slurmctld is restarted. */
    static final List<String> LAUNCHES = List.of("squeue", "-a", "-h", "-t", "CF,R", "-o", "%i %T %M");

    @Test
    void aRestartWaitsForTheJobsLaunchingAndIsLeftOwedWhileTheyStillAre() {
        step.apply(planOf("c0", "22.05.8", List.of("n1", "n2")));
        List<Long> pauses = new java.util.ArrayList<>();
        FakeCommands launching = new FakeCommands()
                .answerPrefix(List.of("squeue"), Commands.Result.ok("7 RUNNING 0:02\n8 RUNNING 5:00\n"))
                .answerPrefix(List.of("scontrol"), Commands.Result.ok(""));
        SlurmStep held = new SlurmStep(
                files,
                services,
                launching,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()),
                pauses::add);
        services.log.clear();
        Outcome o = held.apply(planOf("c0", "22.05.8", List.of("n1", "n2", "n3")));
        assertEquals(
                Outcome.changed(
                        "slurm",
                        "wrote slurm.conf; slurmctld is restarted once no job is launching (job 7 (running 2 s)): "
                                + "a restart as a job launches can lose it; it stays owed for the next pass"),
                o,
                "not a failure: health stays up");
        assertEquals(
                List.of(
                        "slurmctld is restarted once no job is launching (job 7 (running 2 s)): a restart as a job launches can "
                                + "lose it; it stays owed for the next pass"),
                held.waiting());
        assertEquals(List.of(), services.log, "no restart while job 7 launches");
        assertEquals(LaunchGate.LAUNCH_LOOKS, pauses.size(), "a second between looks, 20 looks");
        assertTrue(
                new String(owedFile(), java.nio.charset.StandardCharsets.UTF_8).contains("slurmctld RESTART "),
                "the restart stays owed");
        // Launched: the next pass restarts it, though the files match by then.
        launching.answerPrefix(List.of("squeue"), Commands.Result.ok("7 RUNNING 0:12\n8 RUNNING 5:00\n"));
        assertEquals(
                Outcome.Kind.CHANGED,
                held.apply(planOf("c0", "22.05.8", List.of("n1", "n2", "n3"))).kind());
        assertEquals(List.of("restart slurmctld"), services.log);
    }

    @Test
    void onlyTheJobsLaunchingAtTheFirstLookAreWaitedForSoABusyClusterStillGetsItsRestart() {
        step.apply(planOf("c0", "22.05.8", List.of("n1", "n2")));
        FakeCommands busy = new FakeCommands()
                .answerPrefix(List.of("squeue"), Commands.Result.ok("7 RUNNING 0:02\n"))
                .answerPrefix(List.of("scontrol"), Commands.Result.ok(""));
        List<Long> pauses = new java.util.ArrayList<>();
        LaunchGate.Pause pause = ms -> {
            pauses.add(ms);
            // A second later job 7 has launched, and job 9 has just started.
            busy.answerPrefix(List.of("squeue"), Commands.Result.ok("7 RUNNING 0:12\n9 RUNNING 0:01\n"));
        };
        SlurmStep s = new SlurmStep(
                files,
                services,
                busy,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()),
                pause);
        services.log.clear();
        assertEquals(
                Outcome.Kind.CHANGED,
                s.apply(planOf("c0", "22.05.8", List.of("n1", "n2", "n3"))).kind());
        assertEquals(List.of("restart slurmctld"), services.log);
        assertEquals(List.of(1000L), pauses, "one second, for job 7 only");
        assertEquals(List.of(), s.waiting());
    }

    @Test
    void aJobIsLaunchingWhileConfiguringOrRunningUnderTenSecondsAndOneWhoseTimeSqueueCannotPrintIsNot() {
        assertEquals(
                List.of("job 1 (configuring)", "job 2 (running 9 s)", "job 6 (running 0 s)"),
                List.copyOf(LaunchGate.launching(
                                "1 CONFIGURING 0:00\n2 RUNNING 0:09\n3 RUNNING 0:10\n4 RUNNING 1-00:00:01\n5 RUNNING INVALID\n"
                                        + "6 RUNNING 0:00\n")
                        .values()));
        assertEquals(java.util.OptionalLong.of(3723), LaunchGate.elapsedSeconds("1:02:03"));
        assertEquals(java.util.OptionalLong.of(86_400 + 3723), LaunchGate.elapsedSeconds("1-01:02:03"));
        assertEquals(java.util.OptionalLong.of(754), LaunchGate.elapsedSeconds("12:34"));
        assertEquals(java.util.OptionalLong.empty(), LaunchGate.elapsedSeconds("INVALID"));
    }

    static NodePlan planOf(String node, String slurm, List<String> nodes) {
        Map<String, NodeFacts> inv = new HashMap<>();
        for (String n : List.of("c0", "n1", "n2", "n3")) {
            inv.put(n, TestFacts.eightCores(n).os("debian").slurmVersion(slurm).build());
        }
        SlurmSettings s = new SlurmSettings(
                true, "lab", "c0", nodes, false, List.of("n1"), "gpu", null, null, false, null, Map.of());
        return Planner.plan(s, inv, KEY).nodes().get(node);
    }

    @Test
    void aNodeAddedOrRemovedRestartsSlurmctld2205ThenReconfiguresAndIsAReconfigureFrom2411() {
        // FINDINGS.md, "Reconfigure or restart, per version": 22.05's slurmctld ends on that reconfigure.
        step.apply(planOf("c0", "22.05.8", List.of("n1", "n2")));
        services.log.clear();
        commands.clearLog();
        Outcome added = step.apply(planOf("c0", "22.05.8", List.of("n1", "n2", "n3")));
        assertEquals(
                Outcome.changed(
                        "slurm",
                        "wrote slurm.conf; restarted slurmctld (a change it reads only at start); "
                                + "scontrol reconfigure"),
                added);
        assertEquals(List.of("restart slurmctld"), services.log);
        assertEquals(
                List.of(LAUNCHES, List.of("scontrol", "reconfigure")),
                commands.log(),
                "no job launching, the restart; after it, the slurmds read the new node set");
        assertTrue(
                RestartRules.effects(
                                Map.of(
                                        "/etc/slurm/slurm.conf",
                                        planOf("c0", "22.05.8", List.of("n1", "n2", "n3"))
                                                .files()
                                                .get("/etc/slurm/slurm.conf")),
                                planOf("c0", "22.05.8", List.of("n1", "n2")).files(),
                                List.of("slurmctld"),
                                java.util.Set.of("slurmctld"))
                        .get(0)
                        .why()
                        .startsWith(
                                "slurm.conf adds or removes NodeName lines, which slurmctld 22.05 takes only at a restart"),
                "the preview says the same");

        SlurmStep newer = new SlurmStep(
                new FakeFiles(),
                new FakeServices(),
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        newer.apply(planOf("c0", "24.11.5", List.of("n1", "n2", "n3")));
        commands.clearLog();
        Outcome removed = newer.apply(planOf("c0", "24.11.5", List.of("n1", "n2")));
        assertEquals(Outcome.changed("slurm", "wrote slurm.conf; scontrol reconfigure"), removed);
        assertEquals(List.of(List.of("scontrol", "reconfigure")), commands.log());
    }

    @Test
    void theMeasuredTableOfWhatAReconfigureTakes() {
        var v2205 = SlurmVersion.of(22, 5);
        var v2302 = SlurmVersion.of(23, 2);
        var v2411 = SlurmVersion.of(24, 11);
        var v2605 = SlurmVersion.of(26, 5);
        for (var change : ReconfigureTable.Change.values()) {
            boolean restart2205 = change == ReconfigureTable.Change.NODE_SET
                    || change == ReconfigureTable.Change.SELECT_TYPE_PARAMETERS;
            assertEquals(
                    restart2205 ? ReconfigureTable.Need.SLURMCTLD_RESTART : ReconfigureTable.Need.RECONFIGURE,
                    ReconfigureTable.need(v2205, change),
                    "22.05 " + change);
            assertEquals(
                    ReconfigureTable.need(v2205, change),
                    ReconfigureTable.need(v2302, change),
                    "unmeasured 23.02 as 22.05: " + change);
            assertEquals(ReconfigureTable.Need.RECONFIGURE, ReconfigureTable.need(v2411, change), "24.11 " + change);
            assertEquals(ReconfigureTable.Need.RECONFIGURE, ReconfigureTable.need(v2605, change), "26.05 " + change);
        }
        assertEquals(
                java.util.Optional.of(SlurmVersion.of(24, 11)),
                ReconfigureTable.releaseOf(
                        "# slurm.conf: written by slurmlet, with its generator for Slurm 24.11.\nClusterName=x\n"));
        assertEquals(
                List.of("n1", "n2", "n3"),
                ReconfigureTable.nodeNames("NodeName=n1 CPUs=2\nNodeName=n[2-3] CPUs=2\n# NodeName=n9\n"));
    }

    @Test
    void aKeyReadOnlyAtStartRestartsTheDaemon() {
        assertTrue(RestartRules.needsRestart(
                "SelectType=select/cons_tres\nKillWait=30\n", "SelectType=select/linear\nKillWait=30\n"));
        assertTrue(!RestartRules.needsRestart(
                "SelectType=select/cons_tres\nKillWait=30\n", "SelectType=select/cons_tres\nKillWait=60\n"));
        assertTrue(!RestartRules.needsRestart("# SelectType=x\n", "# SelectType=y\n"));
    }

    @Test
    void aFailedReconfigureSaysWhatScontrolPrinted() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        FakeCommands failing = new FakeCommands()
                .answer(
                        List.of("scontrol", "reconfigure"),
                        new Commands.Result(
                                1, "", "slurm_reconfigure error: Unable to contact slurm controller (connect failure)"))
                .answerPrefix(List.of("squeue"), Commands.Result.ok(""));
        SlurmStep s = new SlurmStep(
                files,
                services,
                failing,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        Outcome o = s.apply(plan("c0", settings("batch", Map.of())));
        assertTrue(o.failed());
        assertTrue(
                o.detail().contains("scontrol reconfigure")
                        && o.detail().contains("Unable to contact slurm controller"),
                o.detail());
    }

    @Test
    void aMachineWithoutFilesYetIsLeftAlone() {
        NodePlan none = NodePlan.of("x", java.util.Set.of());
        assertEquals(Outcome.unchanged("slurm", "no Slurm role here"), step.apply(none));
    }

    @Test
    void aReconfigureThatFailedIsIssuedAgainAtTheNextPassThoughTheFilesThenMatch() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        commands.answer(
                List.of("scontrol", "reconfigure"),
                new Commands.Result(1, "", "slurm_reconfigure error: Zero Bytes were transmitted or received"));
        commands.clearLog();
        assertTrue(step.apply(plan("c0", settings("batch", Map.of()))).failed());
        commands.answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""));
        assertEquals(
                Outcome.changed("slurm", "scontrol reconfigure"), step.apply(plan("c0", settings("batch", Map.of()))));
        assertEquals(
                Outcome.unchanged("slurm", "Slurm's files match and its daemons run"),
                step.apply(plan("c0", settings("batch", Map.of()))));
        assertEquals(
                2,
                commands.log().stream().filter(a -> a.get(0).equals("scontrol")).count(),
                "issued once more, then never again");
    }

    @Test
    void aRestartThatFailedIsTriedAgainAndAReconfigureOwedFoldsIntoIt() {
        NodePlan before = plan("c0", settings("gpu", Map.of()));
        step.apply(before);
        services.running("slurmctld").failing("slurmctld");
        NodePlan restart = plan(
                "c0",
                new SlurmSettings(
                        true,
                        "lab",
                        "c0",
                        List.of("n1", "n2"),
                        false,
                        List.of("n1"),
                        "gpu",
                        null,
                        "slurmlet",
                        false,
                        null,
                        Map.of()));
        assertTrue(
                RestartRules.needsRestart(
                        before.files().get("/etc/slurm/slurm.conf"),
                        restart.files().get("/etc/slurm/slurm.conf")),
                "users=slurmlet adds PrologFlags, read only at start");
        assertTrue(step.apply(restart).failed());
        services.recovered("slurmctld").running("slurmctld");
        services.log.clear();
        Outcome again = step.apply(restart);
        assertEquals(List.of("restart slurmctld"), services.log, again.toString());
        services.log.clear();
        step.apply(restart);
        assertTrue(services.log.isEmpty(), "done once: owed no more");
    }

    byte[] owedFile() {
        return files.stat(Path.of("/var/lib/slurmlet/slurm/owed"))
                .map(io.slurmlet.agent.system.Files.Stat::content)
                .orElse(null);
    }

    /** users=slurmlet adds PrologFlags=Contain, which slurmctld reads only at start. */
    static NodePlan restartingPlan() {
        return plan(
                "c0",
                new SlurmSettings(
                        true,
                        "lab",
                        "c0",
                        List.of("n1", "n2"),
                        false,
                        List.of("n1"),
                        "gpu",
                        null,
                        "slurmlet",
                        false,
                        null,
                        Map.of()));
    }

    @Test
    void anAgentKilledBetweenTheFilesAndTheRestartRestartsWhenItComesBack() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        files.log.clear();
        services.killedAtRestart("slurmctld");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> step.apply(restartingPlan()));
        int owedAt = files.log.indexOf("write /var/lib/slurmlet/slurm/owed rw------- root:root");
        assertTrue(
                owedAt >= 0 && owedAt < files.log.indexOf("write /etc/slurm/slurm.conf rw-r--r-- root:root"),
                "the restart is written down before slurm.conf: " + files.log);
        String owed = new String(owedFile(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(
                owed.matches("slurmctld RESTART [0-9a-f]{32} .*\n"),
                "with the invocation that read the old file: " + owed);
        services.log.clear();

        // A new agent: nothing in memory, the files already match.
        SlurmStep back = new SlurmStep(
                files,
                services,
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        Outcome o = back.apply(restartingPlan());
        assertEquals(List.of("restart slurmctld"), services.log, o.toString());
        assertEquals(Outcome.changed("slurm", "restarted slurmctld (a change it reads only at start)"), o);
        assertTrue(owedFile() == null, "owed no more");
        services.log.clear();
        assertEquals(
                Outcome.unchanged("slurm", "Slurm's files match and its daemons run"), back.apply(restartingPlan()));
        assertTrue(services.log.isEmpty());
    }

    @Test
    void aRestartAnAdminDidSinceItWasOwedIsNotDoneAgain() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        services.killedAtRestart("slurmctld");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> step.apply(restartingPlan()));
        services.restartedByHand("slurmctld");
        services.log.clear();
        SlurmStep back = new SlurmStep(
                files,
                services,
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        assertEquals(
                Outcome.unchanged("slurm", "Slurm's files match and its daemons run"), back.apply(restartingPlan()));
        assertTrue(services.log.isEmpty(), services.log.toString());
        assertTrue(owedFile() == null, "the owed restart is forgotten once done");
    }

    @Test
    void anOwedLineThatCannotBeReadIsDroppedAndTheFilesDecide() throws Exception {
        step.apply(plan("c0", settings("gpu", Map.of())));
        files.write(
                Path.of("/var/lib/slurmlet/slurm/owed"),
                "slurmctld RESTART not-a-time why\ngarbage\n".getBytes(),
                "rw-------",
                "root",
                "root");
        services.log.clear();
        assertEquals(
                Outcome.unchanged("slurm", "Slurm's files match and its daemons run"),
                step.apply(plan("c0", settings("gpu", Map.of()))));
        assertTrue(services.log.isEmpty(), services.log.toString());
        assertTrue(owedFile() == null, "what cannot be read is not kept");
    }

    @Test
    void anOwedRestartWhoseInvocationWasNeverNotedIsDoneAgain() throws Exception {
        step.apply(plan("c0", settings("gpu", Map.of())));
        // Killed after the owed file and slurm.conf were written, before the invocation was noted.
        files.write(
                Path.of("/var/lib/slurmlet/slurm/owed"),
                "slurmctld RESTART - slurm.conf changes PrologFlags\n".getBytes(),
                "rw-------",
                "root",
                "root");
        services.log.clear();
        Outcome o = step.apply(plan("c0", settings("gpu", Map.of())));
        assertEquals(List.of("restart slurmctld"), services.log, o.toString());
        assertTrue(owedFile() == null);
    }

    @Test
    void aReconfigureOwedAfterANodeSetRestartIsWrittenDownBeforeTheFiles() throws Exception {
        // 22.05 restarts slurmctld for a node set change, then has every slurmd reread it.
        Map<String, NodeFacts> inv = new HashMap<>();
        for (String n : List.of("c0", "n1", "n2", "n3")) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("22.05.8")
                            .build());
        }
        SlurmSettings two = new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), "gpu", null, null, false, null, Map.of());
        SlurmSettings three = new SlurmSettings(
                true,
                "lab",
                "c0",
                List.of("n1", "n2", "n3"),
                false,
                List.of("n1"),
                "gpu",
                null,
                null,
                false,
                null,
                Map.of());
        step.apply(Planner.plan(two, inv, KEY).nodes().get("c0"));
        services.killedAtRestart("slurmctld");
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class,
                () -> step.apply(Planner.plan(three, inv, KEY).nodes().get("c0")));
        String owed = new String(owedFile(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(
                owed.contains("slurmctld RESTART ")
                        && owed.contains("slurmctld RECONFIGURE - every slurmd reads the new node set"),
                owed);
        services.log.clear();
        commands.clearLog();
        SlurmStep back = new SlurmStep(
                files,
                services,
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        back.apply(Planner.plan(three, inv, KEY).nodes().get("c0"));
        assertEquals(List.of("restart slurmctld"), services.log);
        assertEquals(
                List.of(LAUNCHES, List.of("scontrol", "reconfigure")), commands.log(), "and the reconfigure after it");
        assertTrue(owedFile() == null);
    }

    private static final List<String> QUEUE = List.of("squeue", "-h", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i");

    /** The settings with the controller moved to n1, which stays a node: c0 has no role left. */
    static SlurmSettings movedTo(String controller, List<String> nodes) {
        return new SlurmSettings(
                true, "lab", controller, nodes, false, List.of("n1"), "gpu", null, null, false, null, Map.of());
    }

    @Test
    void anOldControllerStopsAndDisablesItsSlurmctldOnlyOnceItsQueueIsEmpty() {
        FakeCommands queue = new FakeCommands()
                .answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""))
                .answer(QUEUE, "21\n");
        SlurmStep c0 = new SlurmStep(
                files, services, queue, Path.of("/"), Path.of("/var/lib/slurmlet"), new FakeHostFiles(new FakeFiles()));
        c0.apply(plan("c0", settings("gpu", Map.of())));
        String before = new String(
                files.stat(Path.of("/etc/slurm/slurm.conf")).orElseThrow().content());
        services.log.clear();
        files.log.clear();
        NodePlan retired = plan("c0", movedTo("n1", List.of("n1", "n2")));
        assertEquals(List.of("slurmctld", "slurmd"), retired.slurm().retired());

        Outcome held = c0.apply(retired);
        assertEquals(
                Outcome.unchanged(
                        "slurm",
                        "slurmctld stops here once no job needs it (job 21): this machine is not the controller"),
                held);
        assertEquals(List.of(), services.log, "a job in the old slurmctld's queue keeps it");
        assertEquals(
                QUEUE,
                queue.log().get(queue.log().size() - 1),
                "asked of the old slurmctld, through the slurm.conf that names it");

        queue.answer(
                QUEUE,
                new Commands.Result(
                        1, "", "slurm_load_jobs error: Unable to contact slurm controller (connect failure)"));
        assertTrue(c0.apply(retired).detail().contains("its jobs cannot be asked for"), "not knowing is not none");
        assertEquals(List.of(), services.log);

        queue.answer(QUEUE, "");
        assertEquals(
                Outcome.changed("slurm", "stopped slurmctld (this machine is not the controller)"), c0.apply(retired));
        assertEquals(List.of("stop slurmctld", "disable slurmctld"), services.log);
        assertEquals(
                before,
                new String(files.stat(Path.of("/etc/slurm/slurm.conf"))
                        .orElseThrow()
                        .content()),
                "its files are left");
        assertTrue(files.log.isEmpty(), files.log.toString());

        services.log.clear();
        assertEquals(Outcome.unchanged("slurm", "no Slurm role here"), c0.apply(retired));
        assertEquals(List.of(), services.log, "applied twice, nothing more");
    }

    @Test
    void anOldControllerThatStaysANodeStopsItsSlurmctldBeforeItTakesTheNewFilesAndKeepsThemWhileItsQueueHoldsJobs() {
        FakeCommands queue = new FakeCommands()
                .answer(List.of("scontrol", "reconfigure"), Commands.Result.ok(""))
                .answer(QUEUE, "21\n");
        SlurmStep c0 = new SlurmStep(
                files, services, queue, Path.of("/"), Path.of("/var/lib/slurmlet"), new FakeHostFiles(new FakeFiles()));
        c0.apply(plan("c0", settings("gpu", Map.of())));
        String before = new String(
                files.stat(Path.of("/etc/slurm/slurm.conf")).orElseThrow().content());
        services.log.clear();
        NodePlan node = plan("c0", movedTo("n1", List.of("c0", "n1", "n2")));
        assertEquals(List.of("slurmctld"), node.slurm().retired());

        Outcome held = c0.apply(node);
        assertTrue(held.detail().contains("slurmctld stops here once no job needs it (job 21)"), held.detail());
        assertEquals(
                before,
                new String(files.stat(Path.of("/etc/slurm/slurm.conf"))
                        .orElseThrow()
                        .content()),
                "the files wait: squeue here asks the old slurmctld only while slurm.conf names this machine");
        assertEquals(List.of(), services.log);

        queue.answer(QUEUE, "");
        Outcome o = c0.apply(node);
        assertEquals(
                List.of("stop slurmctld", "disable slurmctld", "daemon-reload", "enable slurmd", "start slurmd"),
                services.log,
                o.detail());
        assertTrue(new String(files.stat(Path.of("/etc/slurm/slurm.conf"))
                        .orElseThrow()
                        .content())
                .contains("SlurmctldHost=n1"));
    }

    @Test
    void aNodeThatLeftSlurmStopsItsSlurmdOnlyOnceNoJobRunsThereAndASitesOwnSlurmdIsLeftAlone() {
        FakeHostFiles host = new FakeHostFiles(new FakeFiles()).stepOf(4242, "33");
        SlurmStep n2 = new SlurmStep(files, services, commands, Path.of("/"), Path.of("/var/lib/slurmlet"), host);
        n2.apply(plan("n2", settings("gpu", Map.of())));
        services.log.clear();
        NodePlan left = plan("n2", movedTo("c0", List.of("n1")));
        assertEquals(List.of("slurmctld", "slurmd"), left.slurm().retired());

        assertEquals(
                Outcome.unchanged(
                        "slurm",
                        "slurmd stops here once no job needs it (job 33 runs here): this machine is not "
                                + "a node of Slurm"),
                n2.apply(left));
        assertEquals(List.of(), services.log);
        host.ended(4242);
        assertEquals(Outcome.changed("slurm", "stopped slurmd (this machine is not a node of Slurm)"), n2.apply(left));
        assertEquals(List.of("stop slurmd", "disable slurmd"), services.log);

        // A slurmd that runs from a slurm.conf slurmlet did not write is the site's.
        FakeFiles siteFiles = new FakeFiles();
        FakeServices site = new FakeServices().running("slurmd");
        siteFiles.put(
                Path.of("/etc/slurm/slurm.conf"),
                "ClusterName=theirs\nSlurmctldHost=head\n".getBytes(),
                "rw-r--r--",
                "root",
                "root");
        SlurmStep theirs = new SlurmStep(
                siteFiles,
                site,
                commands,
                Path.of("/"),
                Path.of("/var/lib/slurmlet"),
                new FakeHostFiles(new FakeFiles()));
        assertEquals(Outcome.unchanged("slurm", "no Slurm role here"), theirs.apply(left));
        assertEquals(List.of(), site.log);
    }

    @Test
    void aDisabledClusterRetiresNothing() {
        step.apply(plan("c0", settings("gpu", Map.of())));
        services.log.clear();
        SlurmSettings off = new SlurmSettings(
                false,
                "lab",
                "c0",
                List.of("n1", "n2"),
                false,
                List.of("n1"),
                "gpu",
                null,
                null,
                false,
                null,
                Map.of());
        NodePlan plan = plan("c0", off);
        assertEquals(List.of(), plan.slurm().retired());
        assertEquals(Outcome.unchanged("slurm", "no Slurm role here"), step.apply(plan));
        assertEquals(List.of(), services.log, "what is installed stays, and runs");
    }
}
