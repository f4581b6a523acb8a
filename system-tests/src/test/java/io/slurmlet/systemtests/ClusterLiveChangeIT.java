package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsJson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The live-change matrix's rows of the reconfigure/restart table on the local cluster: each change
 * made under jobs on every lent node, the dry run's daemon actions compared with what the agents
 * did, then every daemon restarted once more and every job wanted to end with exit code 0, never
 * requeued: a partition renamed (a reconfigure), a node added (a restart on 22.05), a site key
 * taken by a reconfigure, all nodes on and off, users off and on, a site key that needs a restart,
 * and a new munge key switched on every machine at one moment.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterLiveChangeIT extends ClusterTest {

    @Test
    @Order(5)
    void aPartitionRenameReachesEveryNodeWithReconfigureAndNoDaemonRestart() throws Exception {
        // A restart is a new invocation of the unit; a reconfigure is not, though from 23.11 slurmctld
        // re-executes itself on one and its PID changes (system-tests/slurm/FINDINGS.md).
        Map<String, String> invocations = new LinkedHashMap<>();
        for (String node : NODES) {
            invocations.put(
                    node,
                    ok(
                            node,
                            "systemctl",
                            "show",
                            "-p",
                            "InvocationID",
                            "--value",
                            node.equals("n0") ? "slurmctld" : "slurmd"));
        }
        Instant change = Instant.now();
        // From the baseline's batch to gpu; the next cell's baseline renames it back, a reconfigure again.
        awaitTaken(Duration.ofSeconds(15), "partition=gpu");
        await(Duration.ofSeconds(60), "sinfo shows the partition gpu", () -> {
            try {
                return sinfo().values().stream().allMatch(v -> v.startsWith("gpu|"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        awaitPassesAfter(change);
        for (String node : NODES) {
            assertTrue(ok(node, "cat", "/etc/slurm/slurm.conf").contains("PartitionName=gpu"), node);
            assertEquals(
                    invocations.get(node),
                    ok(
                            node,
                            "systemctl",
                            "show",
                            "-p",
                            "InvocationID",
                            "--value",
                            node.equals("n0") ? "slurmctld" : "slurmd"),
                    node + ": no daemon restarted");
        }
        assertTrue(ok("n0", "journalctl", "-u", "slurmlet-agent", "--no-pager").contains("scontrol reconfigure"));
        assertEquals(List.of("n1", "n2"), hostnamesOfATwoNodeJob("-p", "gpu"));
    }

    @Test
    @Order(18)
    void aNodeAddedAndLentUnderJobsHurtsNoJob() throws Exception {
        // n1 out of the nodes first (as a cell of ClusterLendingIT leaves it under a job), then added back under jobs:
        // that changes the node set, which 22.05 takes only at a slurmctld restart.
        ok("n0", "ctl", "slurm", "set", "nodes=n2,n3", "lent=n2");
        await(Duration.ofSeconds(90), "n1 out of slurm.conf and sinfo", () -> {
            try {
                return !slurmConfNodes().contains("n1")
                        && !sinfo().containsKey("n1")
                        && "PLATFORM".equals(lending("n1").get("phase"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        underJobs("add-node", List.of("n2"), List.of("n1", "n2"), "nodes=n1,n2,n3", "lent=n1,n2");
        awaitPhase("n1", "LENT", Duration.ofSeconds(30));
    }

    @Test
    @Order(19)
    void aSiteKeyAddedUnderJobsTakesAReconfigureAndHurtsNoJob() throws Exception {
        underJobs(
                "site-key",
                List.of("n1", "n2"),
                List.of("n1", "n2"),
                (before, after) -> assertEquals(before, after, "a reconfigure: no daemon restarted"),
                "slurm_conf.MaxJobCount=20000");
        assertTrue(ok("n0", "scontrol", "show", "config").contains("MaxJobCount             = 20000"));
    }

    @Test
    @Order(21)
    void allNodesOnAndOffUnderJobsHurtsNoJob() throws Exception {
        // all_nodes adds n0 (every machine with an agent) to the node set, drained; off takes it out again.
        underJobs("all-nodes-on", List.of("n1", "n2"), List.of("n1", "n2"), "all_nodes=true");
        assertTrue(sinfo().containsKey("n0"), "n0 is one of Slurm's nodes, drained: " + sinfo());
        underJobs("all-nodes-off", List.of("n1", "n2"), List.of("n1", "n2"), "all_nodes=false");
        await(Duration.ofSeconds(60), "n0 leaves Slurm's nodes", () -> {
            try {
                return !sinfo().containsKey("n0");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    /**
     * users off and on: PrologFlags=Contain goes and comes back, a key slurmd and slurmctld read
     * only at start (the version table), so each is restarted under the jobs, once; the accounts
     * and their files stay.
     */
    @Test
    @Order(22)
    void usersOffAndOnUnderJobsRestartEveryDaemonOnceAndHurtNoJob() throws Exception {
        underJobs("users-off", List.of("n1", "n2"), List.of("n1", "n2"), EVERY_DAEMON_RESTARTED, "users=");
        assertFalse(ok("n1", "cat", "/etc/slurm/slurm.conf").contains("PrologFlags=Contain"));
        assertEquals("bob", ok("n1", "getent", "passwd", "bob").split(":")[0], "the users stay");
        underJobs("users-on", List.of("n1", "n2"), List.of("n1", "n2"), EVERY_DAEMON_RESTARTED, "users=slurmlet");
        assertTrue(ok("n1", "cat", "/etc/slurm/slurm.conf").contains("PrologFlags=Contain"));
    }

    /**
     * A site's slurm.conf key that the daemons read only at start (SwitchType), set under jobs:
     * slurmctld and every slurmd restarted once, as the dry run said, and no job hurt. Before it, a
     * plugin name the controller's Slurm does not have (which would stop slurmctld, every slurmd and
     * srun: "fatal: Can't find plugin") is refused when written, from the plugins the controller's
     * agent found installed, and no file changes.
     */
    @Test
    @Order(27)
    void aSiteKeyThatNeedsARestartUnderJobsRestartsEveryDaemonOnceAndAPluginTheControllerLacksIsRefused()
            throws Exception {
        String conf = ok("n1", "cat", "/etc/slurm/slurm.conf");
        Proc.Result typo = on("n0", "ctl", "slurm", "set", "slurm_conf.SwitchType=switch/bogus");
        assertFalse(typo.exit() == 0, typo.toString());
        assertTrue(
                typo.toString().contains("SwitchType names the plugin switch/bogus, which the controller n0 (Slurm "),
                typo.toString());
        assertTrue(typo.toString().contains("does not have (no switch_bogus.so in its plugin folder"), typo.toString());
        assertEquals(conf, ok("n1", "cat", "/etc/slurm/slurm.conf"), "nothing written");
        underJobs(
                "site-key-restart",
                List.of("n1", "n2"),
                List.of("n1", "n2"),
                EVERY_DAEMON_RESTARTED,
                "slurm_conf.SwitchType=switch/none");
        for (String node : List.of("n0", "n1", "n2")) {
            assertTrue(ok(node, "cat", "/etc/slurm/slurm.conf").contains("\nSwitchType=switch/none\n"), node);
        }
    }

    /**
     * A munge key rotation ({@code ctl slurm munge-key rotate}) while jobs run on the lent nodes: refused
     * without {@code --under-jobs}; with it, every machine with a Slurm role writes the new key and
     * restarts munged once, at the moment the leader picked (FINDINGS, "Changing the munge key under
     * jobs": machines that disagree refuse each other's messages, and a batch job whose end is refused is
     * requeued); slurmctld and slurmd are not restarted by it; then, as after every change of the
     * matrix, slurmctld and every slurmd are restarted: the jobs that ran through both end COMPLETED 0:0
     * never requeued, and jobs run after. Jobs that end at the moment itself, whose ends cross the switch
     * (the risk {@code --under-jobs} takes), are measured by system-tests/slurm/try-munge-key, not here:
     * one that loses its end holds its node for up to 90 s.
     */
    @Test
    @Order(33)
    void aMungeKeyRotationIsRefusedUnderJobsUnlessAskedAndSwitchesEveryMachineAtOneMoment() throws Exception {
        String cell = "munge-rotate";
        List<String> lent = List.of("n1", "n2"); // the baseline's
        Map<String, String> keys = mungeKeys(NODES);
        Map<String, String> munged = new LinkedHashMap<>();
        Map<String, String> slurm = new LinkedHashMap<>();
        for (String node : NODES) {
            munged.put(
                    node,
                    ok(node, "systemctl", "show", "-p", "InvocationID", "--value", "munge")
                            .strip());
            slurm.put(node, daemons(node));
        }
        List<String> jobs = new ArrayList<>();
        for (String node : lent) {
            jobs.add(sleepJob(node, 120));
        }
        await(
                Duration.ofSeconds(30),
                cell + ": " + jobs + " run",
                () -> jobs.stream().allMatch(j -> jobState(j).equals("RUNNING")));
        Instant asked = Instant.now();
        // The leader hears of new jobs within seconds (the controller's jobs watch); a rename's dry run says when it
        // has.
        await(Duration.ofSeconds(15), cell + ": the leader knows the jobs " + jobs, () -> {
            try {
                return on("n0", "ctl", "slurm", "set", "partition=renamed", "--dry-run")
                                .exit()
                        != 0;
            } catch (Exception e) {
                return false;
            }
        });
        Proc.Result refused = on("n0", "ctl", "slurm", "munge-key", "rotate");
        assertTrue(
                refused.exit() == 1 && refused.err().contains("or say so with --under-jobs"),
                cell + ": while jobs run, a rotation is refused unless asked under them: " + refused);
        Proc.Result rotated = on("n0", "ctl", "-o", "json", "slurm", "munge-key", "rotate", "--under-jobs");
        assertEquals(0, rotated.exit(), cell + ": " + rotated);
        var answer = SettingsJson.STRICT.readTree(rotated.out());
        Instant switchAt = Instant.parse(answer.path("switch_at").asText());
        System.out.printf(
                "ClusterIT %s %s: rotation %d asked at %s, every machine switches at %s; jobs %s%n",
                SUITE, cell, answer.path("rotation").asLong(), asked, switchAt, jobs);
        awaitOneNewMungeKey(cell, keys);
        awaitEveryMachineHoldsRotation(cell, "n0", answer.path("rotation").asLong());
        // Each agent measured its clock against the leader's over its status reports, and switched by the
        // leader's: the machines here share the host's clock, so each is within a few ms of it.
        var shown = SettingsJson.STRICT.readTree(ok("n0", "ctl", "-o", "json", "slurm", "munge-key", "status"));
        for (var m : shown.path("machines")) {
            var clock = java.util.regex.Pattern.compile(
                            "(?:(\\d+) ms (?:ahead of|behind) )?the leader's \\(±(\\d+) ms\\)")
                    .matcher(m.path("clock").asText());
            assertTrue(
                    clock.matches()
                            && (clock.group(1) == null ? 0 : Integer.parseInt(clock.group(1))) <= 50
                            && Integer.parseInt(clock.group(2)) <= 50,
                    cell + ": " + m.path("node").asText() + "'s clock measured against the leader's: " + m);
        }
        for (String node : NODES) {
            assertSwitchedAtTheMoment(cell, node, asked, switchAt);
            assertNotEquals(
                    munged.get(node),
                    ok(node, "systemctl", "show", "-p", "InvocationID", "--value", "munge")
                            .strip(),
                    cell);
            assertEquals(slurm.get(node), daemons(node), cell + ": slurmctld and slurmd are not restarted on " + node);
            String key64 =
                    ok(node, "base64", "-w0", "/etc/munge/munge.key").strip().substring(0, 24);
            assertFalse(
                    ok(
                                    node,
                                    "journalctl",
                                    "-u",
                                    "slurmlet-agent",
                                    "--no-pager",
                                    "--since",
                                    "@" + asked.getEpochSecond())
                            .contains(key64),
                    cell + ": " + node + "'s agent logged no part of the key");
        }
        restartEveryDaemonAndAwait(cell, jobs, List.of(), lent, asked);
    }

    /**
     * auth=slurm, Slurm's own authentication (24.05 and later; this cluster runs trixie's 24.11): a
     * switch is refused while a job runs, since Slurm does not support a change of AuthType under
     * jobs, and nothing is written; once none does, the dry run names slurm.jwks and a restart of
     * slurmctld and every slurmd, the agents do exactly that, every Slurm machine holds the keys as
     * the SlurmUser's 0600 file, slurmctld says auth/slurm and cred/slurm, and root's and bob's jobs
     * run and end COMPLETED 0:0 (bob's commands sign through their machine's daemon). No agent logs
     * a key. Then back to munge the same way, and jobs run again.
     */
    @Test
    @Order(35)
    void authSlurmIsRefusedUnderAJobAndSwitchesBothWaysWhenIdle() throws Exception {
        String cell = "auth-slurm";
        if (ok("n0", "sinfo", "-V").startsWith("slurm-wlm 22.")
                || ok("n0", "sinfo", "-V").startsWith("slurm 22.")) {
            // Bookworm's 22.05 has no auth/slurm: refused when written, a dry run too, and nothing changes.
            String conf = ok("n0", "cat", "/etc/slurm/slurm.conf");
            for (List<String> set : List.of(
                    List.of("ctl", "slurm", "set", "auth=slurm", "--dry-run"),
                    List.of("ctl", "slurm", "set", "auth=slurm"))) {
                Proc.Result r = on("n0", set.toArray(String[]::new));
                assertTrue(
                        r.exit() == 1
                                && r.toString().contains("n0 runs Slurm 22.05")
                                && r.toString()
                                        .contains(
                                                "which has no auth/slurm: upgrade Slurm there to 24.05 or later, or set auth=munge"),
                        cell + ": " + r);
            }
            assertEquals(conf, ok("n0", "cat", "/etc/slurm/slurm.conf"), cell + ": nothing written");
            assertTrue(ok("n0", "ctl", "slurm", "show").matches("(?s).*\\nauth +munge\\n.*"), cell);
            return;
        }
        String job = sleepJob("n1", 120);
        await(
                Duration.ofSeconds(30),
                cell + ": " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        String conf = ok("n0", "cat", "/etc/slurm/slurm.conf");
        await(Duration.ofSeconds(15), cell + ": the leader knows job " + job, () -> {
            try {
                return on("n0", "ctl", "slurm", "set", "auth=slurm", "--dry-run")
                                .exit()
                        != 0;
            } catch (Exception e) {
                return false;
            }
        });
        Proc.Result refused = on("n0", "ctl", "slurm", "set", "auth=slurm");
        assertTrue(
                refused.exit() == 1
                        && refused.toString().contains("Slurm does not support a change of AuthType under jobs")
                        && refused.toString().contains("switch once squeue shows none"),
                cell + ": " + refused);
        assertEquals(conf, ok("n0", "cat", "/etc/slurm/slurm.conf"), cell + ": nothing written");
        finish(cell, List.of(job));

        String dry = awaitDryRun(cell, "auth=slurm");
        assertTrue(dry.contains("/etc/slurm/slurm.jwks"), cell + ": the dry run names the keys' file: " + dry);
        Set<String> planned = dryRunDaemons(dry);
        assertTrue(
                planned.containsAll(List.of("n0 restart slurmctld", "n1 restart slurmd", "n2 restart slurmd")),
                cell + ": " + planned);
        Map<String, String> before = invocations();
        Instant asked = Instant.now();
        ok("n0", "ctl", "slurm", "set", "auth=slurm");
        awaitActed(Duration.ofSeconds(120), cell + ": the agents did what the dry run said", asked, planned);
        EVERY_DAEMON_RESTARTED.check(before, invocations());
        String keys = ok("n0", "cat", "/etc/slurm/slurm.jwks");
        for (String node : NODES) {
            if (on(node, "test", "-e", "/etc/slurm/slurm.conf").exit() != 0) {
                continue;
            }
            assertEquals(
                    "600 slurm:slurm",
                    ok(node, "stat", "-c", "%a %U:%G", "/etc/slurm/slurm.jwks").strip(),
                    cell + ": " + node);
            assertEquals(keys, ok(node, "cat", "/etc/slurm/slurm.jwks"), cell + ": the same keys on " + node);
        }
        String config = ok("n0", "scontrol", "show", "config");
        assertTrue(
                config.matches("(?s).*\\nAuthType\\s+= auth/slurm\\n.*")
                        && config.matches("(?s).*\\nCredType\\s+= cred/slurm\\n.*"),
                cell + ": " + config.lines().filter(l -> l.contains("Type")).toList());
        awaitJobsRunAndEnd(cell + " on auth/slurm");
        for (var key : SettingsJson.STRICT.readTree(keys).path("keys")) {
            String k = key.path("k").asText().substring(0, 24);
            for (String node : NODES) {
                assertFalse(
                        ok(
                                        node,
                                        "journalctl",
                                        "-u",
                                        "slurmlet-agent",
                                        "--no-pager",
                                        "--since",
                                        "@" + asked.getEpochSecond())
                                .contains(k),
                        cell + ": " + node + "'s agent logged no part of a key");
            }
        }
        assertFalse(
                ok("n0", "ctl", "-o", "json", "slurm", "status")
                        .contains(keys.substring(keys.indexOf("\"k\"") + 5, keys.indexOf("\"k\"") + 29)),
                cell + ": status holds no key");

        String back = awaitDryRun(cell, "auth=munge");
        Set<String> plannedBack = dryRunDaemons(back);
        Instant again = Instant.now();
        ok("n0", "ctl", "slurm", "set", "auth=munge");
        awaitActed(Duration.ofSeconds(120), cell + ": back to munge", again, plannedBack);
        assertTrue(
                ok("n0", "scontrol", "show", "config").matches("(?s).*\\nAuthType\\s+= auth/munge\\n.*"),
                cell + ": munge again");
        awaitJobsRunAndEnd(cell + " on munge again");
        assertTrue(slurmctldFatals(asked).isEmpty(), cell + ": " + slurmctldFatals(asked));
    }

    /**
     * Slurm's keys rotated under jobs (auth=slurm, trixie's 24.11), the way no job end is lost: a new
     * key added everywhere, made the one that signs once every daemon loaded it, the old one dropped
     * once every daemon loaded that and the token lifetime passed (AuthInfo ttl=10 here, plus the
     * leader's 30 s margin). Each phase is confirmed by every slurmctld and slurmd re-executing (a new
     * main process, the same systemd invocation: no restart). Throughout, launches from n0 (srun and
     * sbatch, each new allocation) and steps inside a running job (srun --overlap) never fail, the
     * jobs that ran through it end COMPLETED 0:0 never requeued, and every machine ends with the one
     * new key. On bookworm (22.05, munge) the rotation is refused.
     */
    @Test
    @Order(36)
    void slurmsKeysRotateUnderJobsInThreePhasesAndNoLaunchOrEndIsLost() throws Exception {
        String cell = "auth-key-rotate";
        if (ok("n0", "sinfo", "-V").contains(" 22.")) {
            Proc.Result r = on("n0", "ctl", "slurm", "auth-key", "rotate");
            assertTrue(r.exit() == 1 && r.toString().contains("auth=munge"), cell + ": " + r);
            return;
        }
        String dry = awaitDryRun(cell, "auth=slurm");
        Instant switched = Instant.now();
        ok("n0", "ctl", "slurm", "set", "auth=slurm", "slurm_conf.AuthInfo=ttl=10");
        awaitActed(Duration.ofSeconds(120), cell + ": on auth/slurm", switched, dryRunDaemons(dry));
        awaitJobsRunAndEnd(cell + " before the rotation");

        // Each node has 2 CPUs: one job on each, and room on each for the launches below.
        List<String> lent = List.of("n1", "n2");
        List<String> jobs = new ArrayList<>();
        jobs.add(sleepJob("n2", 300));
        // A job whose own steps run all along: each srun --overlap signs through n1's slurmd.
        jobs.add(ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n1",
                        "-o",
                        "/tmp/" + cell + "-inner.out",
                        "--wrap",
                        // Each srun waited for in the background, so that USR1 (finish) ends the job at once.
                        "trap 'exit 0' USR1; while true; do t=$(date +%s.%N); srun --overlap -N1 true 2>>/tmp/" + cell
                                + "-inner.err & wait $!; if [ $? -eq 0 ]; then r=ok; else r=FAILED; fi; "
                                + "echo \"$r $t $(date +%s.%N)\"; sleep 0.2 & wait; done")
                .strip());
        await(
                Duration.ofSeconds(30),
                cell + ": " + jobs + " run",
                () -> jobs.stream().allMatch(j -> jobState(j).equals("RUNNING")));
        // Launches from n0 all along: an srun on n2 and a batch job on n1 by turns, each a new allocation.
        ok(
                "n0",
                "systemd-run",
                "--unit=" + cell + "-launches",
                "bash",
                "-c",
                "rm -f /tmp/launches /tmp/batch-jobs; while [ ! -e /tmp/stop-launches ]; do "
                        + "t=$(date +%s.%N); if timeout 300 srun -N1 -w n2 true; then r=ok; else r=srun-failed; fi; "
                        + "echo \"$r $t $(date +%s.%N)\" >> /tmp/launches; t=$(date +%s.%N); "
                        + "if j=$(timeout 300 sbatch -W --parsable -w n1 -o /dev/null --wrap true); then r=ok; else r=sbatch-failed; fi; "
                        + "echo \"$r $t $(date +%s.%N)\" >> /tmp/launches; echo $j >> /tmp/batch-jobs; "
                        + "sleep 0.3; done");
        Map<String, String> pids = new LinkedHashMap<>();
        pids.put("n0 slurmctld", pid("n0", "slurmctld"));
        for (String node : List.of("n1", "n2", "n3")) {
            if (on(node, "systemctl", "is-active", "slurmd").out().strip().equals("active")) {
                pids.put(node + " slurmd", pid(node, "slurmd"));
            }
        }
        Map<String, String> before = invocations();
        Instant asked = Instant.now();
        var started = SettingsJson.STRICT.readTree(ok("n0", "ctl", "-o", "json", "slurm", "auth-key", "rotate"));
        assertEquals("ADDED", started.path("phase").asText(), cell + ": " + started);
        long generation = started.path("generation").asLong();
        Proc.Result switchMidway = on("n0", "ctl", "slurm", "set", "auth=munge", "--dry-run");
        assertTrue(
                switchMidway.exit() == 1 && switchMidway.toString().contains("of Slurm's keys is under way"),
                cell + ": no switch of auth in the middle of a rotation: " + switchMidway);
        List<String> phases = new ArrayList<>(List.of("ADDED"));
        await(Duration.ofSeconds(180), cell + ": the rotation ends (phases " + phases + ")", () -> {
            com.fasterxml.jackson.databind.JsonNode now;
            try {
                now = SettingsJson.STRICT.readTree(ok("n0", "ctl", "-o", "json", "slurm", "auth-key", "status"));
            } catch (Exception e) {
                return false;
            }
            String phase = now.path("phase").asText();
            if (!phases.get(phases.size() - 1).equals(phase)) {
                phases.add(phase);
                System.out.printf(
                        "ClusterIT %s %s: %s, generation %d, %.1f s after the rotation was asked%n",
                        SUITE,
                        cell,
                        phase,
                        now.path("generation").asLong(),
                        Duration.between(asked, Instant.now()).toMillis() / 1000.0);
            }
            return phase.equals("STEADY");
        });
        var steady = SettingsJson.STRICT.readTree(ok("n0", "ctl", "-o", "json", "slurm", "auth-key", "status"));
        assertEquals(List.of("ADDED", "SWITCHED", "STEADY"), phases, cell);
        assertEquals(generation + 2, steady.path("generation").asLong(), cell + ": " + steady);
        String signing = steady.path("signing_kid").asText();
        assertEquals(List.of(signing), SettingsJson.STRICT.convertValue(steady.path("kids"), List.class), cell);
        ok("n0", "touch", "/tmp/stop-launches");
        await(Duration.ofSeconds(320), cell + ": the launches stopped", () -> {
            try {
                return on("n0", "systemctl", "is-active", cell + "-launches").exit() != 0;
            } catch (Exception e) {
                return false;
            }
        });
        List<String> launched = ok("n0", "cat", "/tmp/launches").lines().toList();
        List<String> launches = launched.stream().map(l -> l.split(" ")[0]).toList();
        double slowestLaunch = launched.stream()
                .map(l -> l.split(" "))
                .filter(f -> f.length == 3)
                .mapToDouble(f -> Double.parseDouble(f[2]) - Double.parseDouble(f[1]))
                .max()
                .orElse(0);
        System.out.printf("ClusterIT %s %s: the slowest launch from n0 took %.1f s%n", SUITE, cell, slowestLaunch);
        System.out.printf(
                "ClusterIT %s %s: %d launches from n0 over the rotation, phases %s%n",
                SUITE, cell, launches.size(), phases);
        if (launches.size() < 4 || !launches.stream().allMatch("ok"::equals)) {
            throw new AssertionError(cell + ": every launch from n0 ran: "
                    + launches.stream().filter(l -> !l.equals("ok")).toList() + " of " + launches.size()
                    + "; what they said:\n"
                    + on("n0", "journalctl", "-u", cell + "-launches", "--no-pager", "-o", "short-precise")
                            .out()
                    + "\nslurmctld:\n"
                    + on(
                                    "n0",
                                    "sh",
                                    "-c",
                                    "journalctl -u slurmctld --no-pager -o short-precise --since @%d | tail -80"
                                            .formatted(asked.getEpochSecond() - 5))
                            .out());
        }
        for (String node : NODES) {
            if (on(node, "test", "-e", "/etc/slurm/slurm.jwks").exit() != 0) {
                continue;
            }
            var file = SettingsJson.STRICT.readTree(ok(node, "cat", "/etc/slurm/slurm.jwks"));
            assertEquals(1, file.path("keys").size(), cell + ": " + node);
            assertEquals(signing, file.path("keys").get(0).path("kid").asText(), cell + ": " + node);
        }
        pids.forEach((daemon, was) -> {
            String[] at = daemon.split(" ");
            try {
                assertNotEquals(was, pid(at[0], at[1]), cell + ": " + daemon + " re-executed for the new keys");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(before, invocations(), cell + ": re-executed, never restarted");
        String steps = on("n0", "squeue", "-s", "-h", "-o", "%i %j %M %N").out();
        String inner = ok("n1", "cat", "/tmp/" + cell + "-inner.out");
        String innerErr = on("n1", "cat", "/tmp/" + cell + "-inner.err").out();
        double slowest = inner.lines()
                .map(l -> l.split(" "))
                .filter(f -> f.length == 3)
                .mapToDouble(f -> Double.parseDouble(f[2]) - Double.parseDouble(f[1]))
                .max()
                .orElse(0);
        System.out.printf(
                "ClusterIT %s %s: steps now:%n%s%ninner srun said:%n%s%nslurmd on n1:%n%s%n",
                SUITE,
                cell,
                steps,
                innerErr,
                on(
                                "n1",
                                "sh",
                                "-c",
                                "journalctl -u slurmd --no-pager -o short-precise --since @%d | grep -v debug | tail -40"
                                        .formatted(asked.getEpochSecond() - 2))
                        .out());
        System.out.printf(
                "ClusterIT %s %s: %d steps inside the job, the slowest %.1f s, started at %s s from the rotation%n",
                SUITE,
                cell,
                inner.lines().count(),
                slowest,
                inner.lines()
                        .map(l -> l.split(" "))
                        .filter(f -> f.length == 3)
                        .map(f -> "%.1f".formatted(Double.parseDouble(f[1]) - asked.toEpochMilli() / 1000.0))
                        .toList());
        assertFalse(inner.contains("FAILED"), cell + ": a step inside the job failed: " + inner + innerErr);
        List<Double> starts = inner.lines()
                .map(l -> l.split(" "))
                .filter(f -> f.length == 3)
                .map(f -> Double.parseDouble(f[1]))
                .toList();
        double longestGap = 0;
        for (int i = 1; i < starts.size(); i++) {
            longestGap = Math.max(longestGap, starts.get(i) - starts.get(i - 1));
        }
        // A step whose creation meets slurmctld's re-execution waits for srun's own retry, about a minute (24.11, any
        // reconfigure): late, never failed. Longer would be a step held for good.
        System.out.printf(
                "ClusterIT %s %s: the longest gap between the job's steps %.1f s; the last step began %.1f s ago%n",
                SUITE,
                cell,
                longestGap,
                starts.isEmpty() ? -1 : Instant.now().toEpochMilli() / 1000.0 - starts.get(starts.size() - 1));
        assertTrue(
                longestGap < 150,
                cell
                        + ": the job's steps ran one after another, none held for good (the longest gap %.1f s): %s"
                                .formatted(longestGap, inner));
        assertTrue(inner.lines().count() >= 3, cell + ": the job's steps ran: " + inner + innerErr);
        for (String job : ok("n0", "cat", "/tmp/batch-jobs")
                .lines()
                .filter(l -> !l.isBlank())
                .toList()) {
            await(Duration.ofSeconds(60), cell + ": batch job " + job + " ends", () -> {
                try {
                    return on("n0", "scontrol", "show", "job", job).out().contains("JobState=COMPLETED");
                } catch (Exception e) {
                    return false;
                }
            });
            String shown = ok("n0", "scontrol", "show", "job", job);
            assertTrue(
                    shown.contains(" ExitCode=0:0") && shown.contains(" Restarts=0 "),
                    cell + ": batch job " + job + "\n" + shown);
        }
        restartEveryDaemonAndAwait(cell, jobs, List.of(), lent, asked);

        String back = awaitDryRun(cell, "auth=munge");
        Instant again = Instant.now();
        ok("n0", "ctl", "slurm", "set", "auth=munge", "slurm_conf.AuthInfo=");
        awaitActed(Duration.ofSeconds(120), cell + ": back to munge", again, dryRunDaemons(back));
        assertTrue(slurmctldFatals(switched).isEmpty(), cell + ": " + slurmctldFatals(switched));
    }

    /** The dry run of {@code change} once the leader takes it (it knows every job ended): its output. */
    private static String awaitDryRun(String cell, String change) throws Exception {
        String[] out = {""};
        await(Duration.ofSeconds(30), cell + ": a dry run of " + change + " is taken", () -> {
            try {
                Proc.Result r = on("n0", "ctl", "slurm", "set", change, "--dry-run");
                out[0] = r.out();
                return r.exit() == 0;
            } catch (Exception e) {
                return false;
            }
        });
        return out[0];
    }

    /** root's srun over n1 and n2, and bob's batch job on n2, run and end with exit code 0, once the nodes take jobs. */
    private static void awaitJobsRunAndEnd(String what) throws Exception {
        await(Duration.ofSeconds(90), what + ": root's srun -N2 runs", () -> {
            try {
                return on("n0", "timeout", "30", "srun", "-N2", "-w", "n1,n2", "true")
                                .exit()
                        == 0;
            } catch (Exception e) {
                return false;
            }
        });
        String bobs = ok(
                        "n0",
                        "runuser",
                        "-u",
                        "bob",
                        "--",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n2",
                        "-o",
                        "/dev/null",
                        "--wrap",
                        "srun true")
                .strip();
        await(Duration.ofSeconds(60), what + ": bob's job " + bobs + " ends", () -> {
            try {
                return on("n0", "scontrol", "show", "job", bobs).out().contains("JobState=COMPLETED");
            } catch (Exception e) {
                return false;
            }
        });
        String shown = ok("n0", "scontrol", "show", "job", bobs);
        assertTrue(
                shown.contains(" ExitCode=0:0") && shown.contains(" Restarts=0 ") && shown.contains("UserId=bob("),
                what + ": bob's job " + bobs + "\n" + shown);
    }
}
