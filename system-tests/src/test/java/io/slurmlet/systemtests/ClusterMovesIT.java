package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SlurmStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The harder moves under jobs on the local cluster: the cluster renamed, what Slurm cannot take
 * under a job refused (a partition renamed, the export moved, the controller moved) and taken once
 * the job ends, a slurmd killed under a job, the controller moved and back, the shared storage
 * moved to a site's NAS and back.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterMovesIT extends ClusterTest {

    @Test
    @Order(17)
    void renamingTheClusterDuringAJobLeavesASlurmctldThatStartsAgainAndTheJobRunning() throws Exception {
        Instant since = Instant.now();
        String job = beatingJob("n2", "rename", 20);
        ok("n0", "ctl", "slurm", "set", "cluster_name=renamed");
        await(Duration.ofSeconds(60), "slurmctld runs as cluster renamed", () -> {
            try {
                return ok("n0", "scontrol", "show", "config").contains("ClusterName             = renamed");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertTrue(
                ok("n0", "cat", "/var/lib/slurm/slurmctld/clustername").startsWith("renamed"),
                "slurmctld's own record follows");
        // Every daemon restarted once more, as a reboot or an upgrade would: none is refused, the job runs on.
        ok("n0", "systemctl", "restart", "slurmctld");
        for (String node : List.of("n1", "n2", "n3")) {
            // try-restart, as a reboot would start only what is enabled: a slurmd slurmlet retired (a machine out of
            // the
            // nodes) stays stopped.
            ok(node, "systemctl", "try-restart", "slurmd");
        }
        await(Duration.ofSeconds(30), "slurmctld answers after its restart", () -> {
            try {
                return on("n0", "scontrol", "ping").out().contains("UP");
            } catch (Exception e) {
                return false;
            }
        });
        assertEquals("active", ok("n0", "systemctl", "is-active", "slurmctld").strip());
        assertEquals("RUNNING", jobState(job), "the job runs on");
        finish("rename", List.of(job));
        await(Duration.ofSeconds(60), "job " + job + " ran to its end", () -> {
            try {
                return on("n0", "cat", "/shared/home/bob/rename.out")
                        .out()
                        .strip()
                        .equals("finished");
            } catch (Exception e) {
                return false;
            }
        });
        assertTrue(longestGap("rename") < 1.0, "the job's writes to /shared never stopped for a second");
        assertEquals("", slurmctldFatals(since));
    }

    /**
     * What Slurm cannot take under a running job is refused, naming the key, the value, the job and
     * the fix, and nothing changes: the partition renamed (Slurm would end the jobs in it), the
     * export moved away from the machine a job mounts it on, or to another path, the controller moved
     * (the jobs live in its slurmctld's state); the rename and the move again while a job only waits in
     * the queue. Once the jobs are gone the rename is taken.
     */
    @Test
    @Order(23)
    void aPartitionRenameOrAnExportMovedUnderAJobIsRefusedAndTheRenameTakenOnceItEnds() throws Exception {
        // The cells before ended their jobs: the leader knows it within seconds (its dry run then refuses nothing).
        awaitTaken(Duration.ofSeconds(30), "partition=renamed", "--dry-run");
        String job = beatingJob("n1", "refused", 15);
        String partition = sinfo().get("n1").split("\\|")[0];
        // The leader hears of a new job within seconds (n1's jobs watch, every 2 s); in that window the controller's
        // own
        // slurm step is what keeps the partition (SlurmStepTest). The refusal is asked for once the leader knows.
        await(Duration.ofSeconds(15), "the leader knows job " + job, () -> {
            try {
                return on("n0", "ctl", "slurm", "set", "partition=renamed", "--dry-run")
                                .exit()
                        != 0;
            } catch (Exception e) {
                return false;
            }
        });
        Proc.Result renamed = on("n0", "ctl", "slurm", "set", "partition=renamed");
        assertFalse(renamed.exit() == 0, renamed.toString());
        assertTrue(
                renamed.toString().contains("renaming the partition " + partition + " to renamed would end"),
                renamed.toString());
        Proc.Result moved = on("n0", "ctl", "slurm", "set", "shared.server=n2");
        assertFalse(moved.exit() == 0, moved.toString());
        assertTrue(moved.toString().contains("n0 would stop exporting /shared to n1"), moved.toString());
        Proc.Result path = on("n0", "ctl", "slurm", "set", "shared.path=/data");
        assertFalse(path.exit() == 0, path.toString());
        assertTrue(
                path.toString().contains("shared.path=/data: n0 would stop exporting /shared to n1"), path.toString());
        Proc.Result controller = on("n0", "ctl", "slurm", "set", "controller=n1");
        assertFalse(controller.exit() == 0, controller.toString());
        assertTrue(
                controller.toString().contains("moving slurmctld from n0 to n1 would lose the 1 job it runs (" + job),
                controller.toString());
        assertTrue(
                ok("n1", "findmnt", "-n", "-o", "SOURCE", "/shared").strip().startsWith("n0:"),
                "n1 mounts the export it had");
        assertEquals(partition, sinfo().get("n1").split("\\|")[0], "the partition is as it was");
        // A job waiting in the queue (n3 is the platform's) holds up the same two: it lives in slurmctld's state too,
        // and Slurm fails a queued job whose partition leaves slurm.conf. Sent while the controller still looks every 2
        // s.
        String waiting = ok("n0", "sbatch", "--parsable", "-w", "n3", "-o", "/dev/null", "--wrap", "true")
                .strip();
        finish("refused", List.of(job));
        await(
                Duration.ofSeconds(60),
                "job " + job + " ends",
                () -> jobState(job).isEmpty());
        assertEquals("finished", ok("n0", "cat", "/shared/home/bob/refused.out").strip());
        assertEquals("PENDING", jobState(waiting));
        await(Duration.ofSeconds(15), "the leader knows job " + waiting + " waits", () -> {
            try {
                return on("n0", "ctl", "slurm", "set", "controller=n1", "--dry-run")
                        .toString()
                        .contains("would lose the 1 job waiting in its queue (" + waiting + " of root)");
            } catch (Exception e) {
                return false;
            }
        });
        Proc.Result queuedRename = on("n0", "ctl", "slurm", "set", "partition=renamed");
        assertFalse(queuedRename.exit() == 0, queuedRename.toString());
        assertTrue(
                queuedRename.toString().contains("would end the 1 job waiting for it (" + waiting + " of root)"),
                queuedRename.toString());
        ok("n0", "scancel", waiting);
        // The leader hears within seconds that the jobs have gone (the controller looks every 10 s with nothing
        // running).
        awaitTaken(Duration.ofSeconds(30), "partition=renamed");
        await(Duration.ofSeconds(60), "sinfo shows the partition renamed", () -> {
            try {
                return sinfo().values().stream().allMatch(v -> v.startsWith("renamed|"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        Instant back = Instant.now();
        ok("n0", "ctl", "slurm", "set", "partition=" + partition);
        await(Duration.ofSeconds(60), "sinfo shows the partition " + partition + " again", () -> {
            try {
                return sinfo().values().stream().allMatch(v -> v.startsWith(partition + "|"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        // Settled before the next cell: from 23.11 a reconfigure has slurmd start anew (another PID) a moment later.
        awaitPassesAfter(back);
    }

    /**
     * The fourth case: slurmd killed (SIGKILL of its main PID, as a crash or the OOM killer
     * would; {@code systemctl kill} would signal the job's slurmstepd too) on a node running a job.
     * The agent sees it within seconds (not at the next resync, 60 s later) and starts it again; the
     * job runs on, its writes to /shared never stopping for a second (slurmlet's Restart= drop-in has
     * systemd start it 1 s after the crash, the agent's watch otherwise). Then a
     * slurmd that will not start (its start fails until the test lets it): readiness says so with the
     * daemon and systemd's reason, the leader's status too, and it runs again once it can start.
     * Then, with the agent stopped, systemd alone starts a crashed slurmd (slurmlet's Restart=
     * drop-in). The figures are printed for the note.
     */
    @Test
    @Order(24)
    void aSlurmdKilledUnderAJobIsSaidDownInHealthAndStatusWithinSecondsAndStartedAgainAndTheJobRunsOn()
            throws Exception {
        Instant since = Instant.now();
        String job = beatingJob("n1", "killed", 20);
        String slurmd = pid("n1", "slurmd");
        long killed = System.nanoTime();
        // systemd's kill of the main PID there is then: a slurmd that started anew since it was read is killed all the
        // same.
        ok("n1", "systemctl", "kill", "--kill-whom=main", "--signal=KILL", "slurmd");
        awaitRunningAgain("n1", "slurmd", slurmd, "slurmd runs again on n1");
        // systemd's Restart= (1 s) may start it again before the agent's next look (1 s): the agent's word is printed
        // where
        // it has one; readiness and status are asserted below on a slurmd that stays down.
        double back = (System.nanoTime() - killed) / 1e9;
        String agentSaid = ok(
                        "n1",
                        "sh",
                        "-c",
                        "journalctl -u slurmlet-agent --since @%d --no-pager -o cat | grep 'slurmd is down' || true"
                                .formatted(since.getEpochSecond()))
                .strip();
        System.out.printf(
                "ClusterIT %s: slurmd killed on n1: running again after %.2f s; the agent said: %s%n",
                SUITE, back, agentSaid.isEmpty() ? "nothing (up again before its next look)" : agentSaid);
        assertTrue(back < 15, "seconds, not the next resync (60 s): " + back);
        // Seen down or not, the crash is said, from systemd's restart count: in the leader's status and n1's readiness
        // (200).
        String[] restarted = {""};
        await(
                Duration.ofSeconds(10),
                "the leader's status says systemd started n1's slurmd again after it ended",
                () -> {
                    try {
                        status().nodes().stream()
                                .filter(n -> n.name().equals("n1"))
                                .flatMap(n -> n.steps().stream())
                                .filter(st -> !st.failed()
                                        && st.step().equals("daemons")
                                        && st.toString().contains("systemd started slurmd again after it ended 1 time"))
                                .findFirst()
                                .ifPresent(st -> restarted[0] = st.toString());
                        return !restarted[0].isEmpty();
                    } catch (Exception | AssertionError e) {
                        return false;
                    }
                });
        String ready = health("n1");
        assertTrue(
                ready.startsWith("HTTP/1.0 200")
                        && ready.contains("systemd started slurmd again after it ended 1 time"),
                ready);
        System.out.printf("ClusterIT %s: after the kill, status said: %s%n", SUITE, restarted[0]);
        finish("killed", List.of(job));
        await(
                Duration.ofSeconds(60),
                "job " + job + " ran to its end",
                () -> jobState(job).isEmpty());
        String shown = ok("n0", "scontrol", "show", "job", job);
        assertTrue(
                shown.contains("JobState=COMPLETED")
                        && shown.contains(" ExitCode=0:0")
                        && shown.contains(" Restarts=0 "),
                shown);
        assertEquals("finished", ok("n0", "cat", "/shared/home/bob/killed.out").strip());
        assertTrue(longestGap("killed") < 1.0, "the job's writes to /shared never stopped for a second");
        assertEquals("", slurmctldFatals(since));

        // A slurmd that will not start (a drop-in of the test's, in /run, fails its start): said down in readiness and
        // in
        // the leader's status, with systemd's reason and the agent's tries, until it can start again.
        ok(
                "n1",
                "sh",
                "-c",
                "mkdir -p /run/systemd/system/slurmd.service.d && printf '[Service]\\nExecStartPre=/bin/false\\n' "
                        + ">/run/systemd/system/slurmd.service.d/zz-it-broken.conf && systemctl daemon-reload");
        String[] said = {"", ""};
        try {
            ok("n1", "systemctl", "kill", "--kill-whom=main", "--signal=KILL", "slurmd");
            await(Duration.ofSeconds(60), "n1's readiness and the leader's status say slurmd is down", () -> {
                try {
                    String answer = health("n1");
                    if (said[0].isEmpty() && answer.startsWith("HTTP/1.0 503") && answer.contains("slurmd is down")) {
                        said[0] = answer;
                    }
                    if (said[1].isEmpty()) {
                        status().nodes().stream()
                                .filter(n -> n.name().equals("n1"))
                                .flatMap(n -> n.steps().stream())
                                .filter(st -> st.failed()
                                        && st.step().equals("daemons")
                                        && st.toString().contains("slurmd is down"))
                                .findFirst()
                                .ifPresent(st -> said[1] = st.toString());
                    }
                    return !said[0].isEmpty() && !said[1].isEmpty();
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
        } finally {
            ok(
                    "n1",
                    "sh",
                    "-c",
                    "rm -f /run/systemd/system/slurmd.service.d/zz-it-broken.conf && systemctl daemon-reload");
        }
        System.out.printf(
                "ClusterIT %s: a slurmd that would not start: readiness said %s; status said %s%n",
                SUITE,
                said[0].lines()
                        .filter(l -> l.contains("slurmd is down"))
                        .findFirst()
                        .orElse(said[0])
                        .strip(),
                said[1]);
        assertTrue(
                said[0].contains("signal") || said[0].contains("failed") || said[0].contains("exit-code"),
                "systemd's reason: " + said[0]);
        await(Duration.ofSeconds(60), "slurmd runs again on n1 once it can start, and n1 is ready", () -> {
            try {
                return ok("n1", "systemctl", "is-active", "slurmd").strip().equals("active")
                        && health("n1").startsWith("HTTP/1.0 200");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });

        // With n1's agent down, systemd alone starts a crashed slurmd again: slurmlet's Restart= drop-in (1 s).
        assertEquals(
                "on-failure",
                ok("n0", "systemctl", "show", "-p", "Restart", "--value", "slurmctld")
                        .strip());
        assertEquals(
                "on-failure",
                ok("n1", "systemctl", "show", "-p", "Restart", "--value", "slurmd")
                        .strip());
        ok("n1", "systemctl", "stop", "slurmlet-agent");
        try {
            String crashed = pid("n1", "slurmd");
            long at = System.nanoTime();
            ok("n1", "systemctl", "kill", "--kill-whom=main", "--signal=KILL", "slurmd");
            awaitRunningAgain("n1", "slurmd", crashed, "systemd starts slurmd again on n1, its agent stopped");
            System.out.printf(
                    "ClusterIT %s: slurmd killed on n1 with its agent stopped: systemd started it again after %.2f s%n",
                    SUITE, (System.nanoTime() - at) / 1e9);
        } finally {
            ok("n1", "systemctl", "start", "slurmlet-agent");
        }
        await(Duration.ofSeconds(60), "n1's agent is back and ready", () -> {
            try {
                return health("n1").startsWith("HTTP/1.0 200");
            } catch (Exception e) {
                return false;
            }
        });
    }

    /**
     * The controller moved, with no job in its queue, to a machine that is also a node, and back: the
     * new machine's slurmctld starts and every slurmd follows it (SlurmctldHost, read only at start);
     * the old slurmctld is stopped and disabled (before its machine takes the new files), never left
     * to take the jobs sent from machines that still name it; a machine that leaves the nodes has its
     * slurmd stopped too. Jobs run after each move, and after a restart of every daemon.
     */
    @Test
    @Order(25)
    void theControllerMovedAndBackWithNoJobLeavesOneSlurmctldRunningAndJobsRun() throws Exception {
        Instant since = Instant.now();
        // The old controller has to be a machine of the cluster still: it exports /shared.
        awaitTaken(Duration.ofSeconds(30), "controller=n1", "nodes=n0,n1,n2,n3", "--dry-run");
        String dry = ok("n0", "ctl", "slurm", "set", "controller=n1", "nodes=n0,n1,n2,n3", "--dry-run");
        assertTrue(
                dryRunDaemons(dry).containsAll(List.of("n0 stop slurmctld", "n1 start slurmctld", "n0 start slurmd")),
                dry);
        ok("n0", "ctl", "slurm", "set", "controller=n1", "nodes=n0,n1,n2,n3");
        await(Duration.ofSeconds(120), "n1's slurmctld runs, n0's is stopped and disabled", () -> {
            try {
                return unitState("n1", "slurmctld").equals("active/enabled")
                        && unitState("n0", "slurmctld").equals("inactive/disabled");
            } catch (Exception e) {
                return false;
            }
        });
        awaitActed(Duration.ofSeconds(30), "n0's agent says it stopped slurmctld", since, List.of("n0 stop slurmctld"));
        assertTrue(ok("n0", "cat", "/etc/slurm/slurm.conf").contains("SlurmctldHost=n1"));
        await(Duration.ofSeconds(90), "jobs run under n1's slurmctld", () -> {
            try {
                return on("n0", "srun", "-N2", "-w", "n1,n2", "-t", "1", "true").exit() == 0;
            } catch (Exception e) {
                return false;
            }
        });
        assertTrue(ok("n0", "scontrol", "ping").contains("at n1 is UP"), "the one controller is n1");
        // Every machine's last pass came after the change and failed nothing (a pass after now would be the next
        // resync's, 60 s).
        awaitPassesAfter(since);
        assertEquals(
                "inactive/disabled",
                unitState("n0", "slurmctld"),
                "the old slurmctld stays stopped: nothing starts it again");

        Instant back = Instant.now();
        awaitTaken(Duration.ofSeconds(30), "controller=n0", "nodes=n1,n2,n3");
        await(Duration.ofSeconds(120), "n0's slurmctld runs again, n1's is stopped, n0's slurmd too", () -> {
            try {
                return unitState("n0", "slurmctld").equals("active/enabled")
                        && unitState("n1", "slurmctld").equals("inactive/disabled")
                        && unitState("n0", "slurmd").startsWith("inactive/");
            } catch (Exception e) {
                return false;
            }
        });
        awaitActed(
                Duration.ofSeconds(30),
                "n1's agent stopped slurmctld and n0's slurmd",
                back,
                List.of("n1 stop slurmctld", "n0 stop slurmd"));
        await(Duration.ofSeconds(90), "jobs run under n0's slurmctld again", () -> {
            try {
                return on("n0", "srun", "-N2", "-w", "n1,n2", "-t", "1", "true").exit() == 0;
            } catch (Exception e) {
                return false;
            }
        });
        awaitPassesAfter(back);
        // Every daemon restarted once more, as a reboot would: the retired ones stay down, the cluster runs.
        ok("n0", "systemctl", "restart", "slurmctld");
        for (String node : List.of("n1", "n2", "n3")) {
            // try-restart, as a reboot would start only what is enabled: a slurmd slurmlet retired (a machine out of
            // the
            // nodes) stays stopped.
            ok(node, "systemctl", "try-restart", "slurmd");
        }
        await(Duration.ofSeconds(60), "jobs run after every daemon's restart", () -> {
            try {
                return on("n0", "srun", "-N2", "-w", "n1,n2", "-t", "1", "true").exit() == 0;
            } catch (Exception e) {
                return false;
            }
        });
        assertEquals("inactive/disabled", unitState("n1", "slurmctld"));
        assertTrue(ok("n0", "scontrol", "ping").contains("at n0 is UP"));
        assertEquals("", slurmctldFatals(since));
        assertEquals(
                "",
                ok(
                                "n1",
                                "sh",
                                "-c",
                                "journalctl -u slurmctld -o cat --since @%d | grep -i fatal || true"
                                        .formatted(since.getEpochSecond()))
                        .strip(),
                "n1's slurmctld never ended on a fatal");
    }

    /**
     * shared.* each way: the cluster's storage moved from its own server (n0) to the site's export
     * and back. n3 stands in for the site's NAS: an nfs-ganesha of the site's own (no slurmlet header,
     * so slurmlet leaves it alone) exporting /srv/nas. The move to it is refused while a job runs on
     * a machine that mounts n0's export (n0 cannot tell who uses it); with no job it is taken: every
     * machine mounts the NAS, n0 stops exporting, bob's home is made there, no daemon restarts. The
     * move back is made under jobs writing to the NAS: n0 and the free machines move at once (a client
     * waits for n0 to export, never failing), the busy ones keep the NAS until their jobs end, and
     * then follow within seconds; n0's export holds what it held before.
     */
    @Test
    @Order(26)
    void theSharedStorageMovedToTheSitesExportAndBackUnderJobsHurtsNoJob() throws Exception {
        String conf =
                ("# The site's NAS (a stand-in): its own nfs-ganesha exporting /srv/nas to the cluster's subnet.\n"
                                + "NFS_CORE_PARAM {\n    Protocols = 3, 4;\n    Enable_NLM = false;\n    Enable_RQUOTA = false;\n%s}\n"
                                + "NFS_KRB5 {\n    Active_krb5 = false;\n}\nNFSV4 {\n    Graceless = true;\n}\n"
                                + "EXPORT {\n    Export_Id = 1;\n    Path = /srv/nas;\n    Pseudo = /srv/nas;\n    Protocols = 3, 4;\n    Transports = TCP;\n"
                                + "    SecType = sys;\n    Squash = No_Root_Squash;\n    Access_Type = None;\n"
                                + "    CLIENT {\n        Clients = 10.77.0.0/24;\n        Access_Type = RW;\n    }\n    FSAL {\n        Name = VFS;\n    }\n}\n")
                        .formatted(SUITE.equals("bookworm") ? "" : "    allow_set_io_flusher_fail = true;\n");
        ok(
                "n3",
                "sh",
                "-c",
                "mkdir -p /srv/nas && printf '%s' \"$1\" >/etc/ganesha/ganesha.conf && systemctl restart nfs-ganesha",
                "sh",
                conf);
        await(Duration.ofSeconds(60), "n3 exports /srv/nas", () -> {
            try {
                return on("n1", "showmount", "-e", "--no-headers", "n3").out().startsWith("/srv/nas ");
            } catch (Exception e) {
                return false;
            }
        });
        List<String> machines = NODES;

        // Refused under a job on a machine that mounts n0's export.
        String job = beatingJob("n1", "to-nas-refused", 10);
        await(Duration.ofSeconds(15), "the leader knows job " + job, () -> {
            try {
                return on("n0", "ctl", "slurm", "set", "shared.server=", "shared.nfs=n3:/srv/nas", "--dry-run")
                                .exit()
                        != 0;
            } catch (Exception e) {
                return false;
            }
        });
        Proc.Result refused = on("n0", "ctl", "slurm", "set", "shared.server=", "shared.nfs=n3:/srv/nas");
        assertFalse(refused.exit() == 0, refused.toString());
        assertTrue(
                refused.toString()
                        .contains(
                                "n0 would stop exporting /shared to n1 while 1 job that may use it still runs (" + job),
                refused.toString());
        finish("to-nas-refused", List.of(job));
        await(
                Duration.ofSeconds(60),
                "job " + job + " ends",
                () -> jobState(job).isEmpty());

        // Taken with no job: every machine mounts the NAS, n0 stops exporting, no daemon restarts.
        awaitTaken(Duration.ofSeconds(30), "shared.server=", "shared.nfs=n3:/srv/nas", "--dry-run");
        String dry = ok("n0", "ctl", "slurm", "set", "shared.server=", "shared.nfs=n3:/srv/nas", "--dry-run");
        assertTrue(
                dry.contains("n0: mount n3:/srv/nas at /shared\n")
                        && dry.contains("n0: stop exporting /shared\n")
                        && dry.contains("n1: mount n3:/srv/nas at /shared again, instead of n0:/shared\n"),
                dry);
        assertEquals(Set.of(), dryRunDaemons(dry), dry);
        Map<String, String> before = invocations();
        long moved;
        try (HealthWatch health = new HealthWatch()) {
            long changed = System.nanoTime();
            Instant setAt = Instant.now();
            ok("n0", "ctl", "slurm", "set", "shared.server=", "shared.nfs=n3:/srv/nas");
            health.everyMachineListed = true;
            await(Duration.ofSeconds(90), "every machine mounts n3:/srv/nas", () -> {
                try {
                    return mounting("n3:/srv/nas", machines).equals(machines);
                } catch (Exception e) {
                    return false;
                }
            });
            moved = System.nanoTime() - changed;
            await(Duration.ofSeconds(60), "bob's home made on the NAS", () -> {
                try {
                    return on("n3", "stat", "-c", "%U %a", "/srv/nas/home/bob")
                            .out()
                            .strip()
                            .equals("bob 700");
                } catch (Exception e) {
                    return false;
                }
            });
            awaitPassesAfter(setAt);
            health.close();
            assertEquals(
                    List.of(), health.untrue, "readiness and status were true at every look while the storage moved");
        }
        assertEquals(
                "inactive",
                on("n0", "systemctl", "is-active", "nfs-ganesha").out().strip(),
                "n0 no longer exports");
        assertEquals(
                "active", ok("n3", "systemctl", "is-active", "nfs-ganesha").strip(), "the site's server is left alone");
        assertTrue(
                ok("n3", "cat", "/etc/ganesha/ganesha.conf").startsWith("# The site's NAS"),
                "the site's ganesha.conf is left alone");
        assertEquals(before, invocations(), "moving the storage restarts no daemon");

        // Back to n0's export, under jobs writing to the NAS (read there: n0 no longer mounts it by the time they end).
        beatsAt = new String[] {"n3", "/srv/nas/home/bob/"};
        try {
            underJobs(
                    "from-nas",
                    List.of("n1", "n2"),
                    List.of("n1", "n2"),
                    (was, now) -> {
                        // The free machine mounts n0's export once n0 lists it (its agent asks showmount, and waits
                        // meanwhile).
                        await(Duration.ofSeconds(30), "n3 mounts n0's export", () -> {
                            try {
                                return mounting("n0:/shared", List.of("n3")).equals(List.of("n3"));
                            } catch (Exception e) {
                                return false;
                            }
                        });
                        assertEquals(
                                List.of("n1", "n2"),
                                mounting("n3:/srv/nas", machines),
                                "the machines running jobs keep the NAS mounted");
                        SlurmStatus status = status();
                        for (String busy : List.of("n1", "n2")) {
                            assertTrue(
                                    status.nodes().stream()
                                            .filter(n -> n.name().equals(busy))
                                            .flatMap(n -> n.steps().stream())
                                            .anyMatch(
                                                    st -> st.step().equals("storage")
                                                            && st.toString()
                                                                    .contains(
                                                                            "mounting n0:/shared at /shared instead of n3:/srv/nas waits for job")),
                                    busy + " says why: " + status);
                        }
                    },
                    40,
                    "shared.nfs=",
                    "shared.server=n0");
        } finally {
            beatsAt = new String[] {"n0", "/shared/home/bob/"};
        }
        await(Duration.ofSeconds(60), "n1 and n2 mount n0's export once their jobs ended", () -> {
            try {
                return mounting("n0:/shared", List.of("n1", "n2", "n3")).size() == 3;
            } catch (Exception e) {
                return false;
            }
        });
        // From a busy machine's last beat (its job's end) to its agent's remount, both on this machine's clock.
        List<String> followed = new ArrayList<>();
        for (String busy : List.of("n1", "n2")) {
            String[] beats = ok("n3", "cat", "/srv/nas/home/bob/from-nas-" + busy + ".beats")
                    .strip()
                    .split("\n");
            // The mount can be seen a moment before journald has the agent's line that says it.
            String[] mounted = {""};
            await(Duration.ofSeconds(10), busy + "'s agent logged its remount", () -> {
                try {
                    mounted[0] = ok(
                                    busy,
                                    "sh",
                                    "-c",
                                    "journalctl -u slurmlet-agent -o short-unix --no-pager | grep 'storage: .*mounted "
                                            + "n0:/shared at /shared again' | tail -1")
                            .strip();
                    return !mounted[0].isEmpty();
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
            followed.add("%s %.1f s"
                    .formatted(
                            busy,
                            Double.parseDouble(mounted[0].split(" ")[0])
                                    - Double.parseDouble(beats[beats.length - 1])));
        }
        System.out.printf(
                "ClusterIT %s: shared storage to the site's export with no job: every machine mounted it %.1f s after the set; "
                        + "back to n0 under jobs: the busy machines remounted after their jobs' last beat: %s%n",
                SUITE, moved / 1e9, String.join(", ", followed));
        assertEquals("active", ok("n0", "systemctl", "is-active", "nfs-ganesha").strip());
        assertEquals(
                "finished",
                ok("n2", "cat", "/shared/home/bob/to-nas-refused.out").strip(),
                "n0's export holds what it held before");
        assertEquals(
                "",
                on("n0", "findmnt", "-n", "/shared").out().strip(),
                "n0 serves its own folder again, nothing over it");
    }
}
