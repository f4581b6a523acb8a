package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The agent's own life on the local cluster: lent nodes run jobs and the others are drained with
 * slurmlet's reason; an agent restarted, the leader down and back, slurmlet upgraded under a job,
 * a step that fails and recovers, an agent killed between writing slurm.conf and restarting slurmd:
 * no daemon restarted that did not need it, no file rewritten, no job touched.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterAgentIT extends ClusterTest {

    @Test
    @Order(1)
    void lentNodesRunJobsAndTheOthersAreDrainedWithOurReason() throws Exception {
        Map<String, String> nodes = sinfo();
        assertLentAndIdle("batch", nodes.get("n1"), nodes.toString());
        assertLentAndIdle("batch", nodes.get("n2"), nodes.toString());
        assertTrue(nodes.get("n3").startsWith("batch|drained|slurmlet: "), nodes::toString);
        assertEquals(List.of("n1", "n2"), hostnamesOfATwoNodeJob());
        awaitPassesAfter(Instant.EPOCH);
        String table = ok("n0", "ctl", "slurm", "status");
        assertFalse(table.contains("FAILED"), table);
        // n3 joined through agent.yaml alone (dev/cluster): a node of n0's, with no leader of its own.
        assertEquals(
                "no join.env, no CA",
                ok(
                                "n3",
                                "sh",
                                "-c",
                                "test -e /etc/slurmlet/join.env || test -e /var/lib/slurmlet/pki || echo 'no join.env, no CA'")
                        .strip());
        assertTrue(ok("n3", "cat", "/etc/slurmlet/agent.yaml").contains("leader: https://n0:7818"));
        // Joined, each machine keeps no join token: not in a file, not in join.env, not in the agent's environment,
        // which every process it starts (a user's own, the users step's reads) would be handed.
        for (String node : List.of("n1", "n2", "n3")) {
            assertEquals(
                    "no token",
                    ok(
                                    node,
                                    "sh",
                                    "-c",
                                    "test -e /etc/slurmlet/join-token && echo left; "
                                            + "grep -s JOIN_TOKEN= /etc/slurmlet/join.env; tr '\\0' '\\n' </proc/$(systemctl show -p MainPID --value slurmlet-agent)/environ "
                                            + "| grep JOIN_TOKEN=; echo 'no token'")
                            .strip(),
                    node);
        }
    }

    @Test
    @Order(2)
    void restartingAnAgentRestartsNoDaemonAndRewritesNoFile() throws Exception {
        Map<String, String> before = snapshots();
        Instant restart = Instant.now();
        ok("n1", "systemctl", "restart", "slurmlet-agent");
        awaitPassesAfter(restart, "n1");
        assertEquals(before, snapshots());
    }

    @Test
    @Order(3)
    void withTheLeaderDownJobsStillRunAndItsReturnChangesNothing() throws Exception {
        Map<String, String> before = snapshots();
        await(
                Duration.ofSeconds(30),
                () -> "every machine applied the plan the leader holds for it: " + revisions(),
                () -> revisions().size() == NODES.size()
                        && revisions().values().stream().allMatch(r -> r.split("/")[0].equals(r.split("/")[1])));
        Map<String, Long> held = new java.util.TreeMap<>();
        status().nodes().forEach(n -> held.put(n.name(), n.planRevision()));
        ok("n0", "systemctl", "stop", "slurmlet-agent");
        assertEquals(List.of("n1", "n2"), hostnamesOfATwoNodeJob());
        Thread.sleep(3_000);
        assertLentAndIdle("batch", sinfo().get("n1"), "n1 with the leader down");
        assertEquals(before, snapshots(), "with the leader down no agent changes anything");
        Instant start = Instant.now();
        ok("n0", "systemctl", "start", "slurmlet-agent");
        awaitPassesAfter(start);
        assertEquals(before, snapshots(), "a leader that starts again changes nothing");
        // Each agent told the new leader which plan it holds (its digest), so none was sent its plan
        // again under a new revision: each holds, and the leader publishes, the revision it had.
        await(
                Duration.ofSeconds(30),
                () -> "every plan_revision equal to plan_published and to the one held before: " + revisions(),
                () -> revisions().entrySet().stream()
                                .allMatch(e -> e.getValue().equals(held.get(e.getKey()) + "/" + held.get(e.getKey())))
                        && revisions().keySet().containsAll(held.keySet()));
    }

    @Test
    @Order(4)
    void upgradingSlurmletDuringAJobTouchesNoDaemonNoFileAndNoJob() throws Exception {
        // The job runs until the test lets it end: however long the upgrade takes, it is still running.
        ok("n2", "rm", "-f", "/var/tmp/upgrade-done");
        String job = ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n2",
                        "-o",
                        "/tmp/upgrade-job.out",
                        "--wrap",
                        "while [ ! -e /var/tmp/upgrade-done ]; do sleep 0.2; done; echo finished")
                .strip();
        await(
                Duration.ofSeconds(20),
                "job " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        Map<String, String> before = snapshots();
        String agentBefore = ok("n2", "systemctl", "show", "-p", "MainPID", "--value", "slurmlet-agent")
                .strip();
        Path newer = Debs.newerBuild(Debs.newest("slurmlet_*_all.deb"), RUN.resolve("newer"), RUN.resolve("packages"));
        Instant upgrade = Instant.now();
        ok(
                "n2",
                "env",
                "DEBIAN_FRONTEND=noninteractive",
                "apt-get",
                "install",
                "-y",
                "--no-install-recommends",
                "/var/tmp/slurmlet-packages/" + newer.getFileName());
        assertEquals(
                Debs.version(newer),
                ok("n2", "dpkg-query", "-W", "-f", "${Version}", "slurmlet").strip());
        assertNotEquals(
                agentBefore,
                ok("n2", "systemctl", "show", "-p", "MainPID", "--value", "slurmlet-agent")
                        .strip(),
                "the agent restarted on the new build");
        assertEquals("RUNNING", jobState(job), "the job runs on through the upgrade");
        awaitPassesAfter(upgrade, "n2");
        assertEquals(before, snapshots(), "the upgraded agent's first pass restarts no daemon and rewrites no file");
        assertEquals("RUNNING", jobState(job), "the job still runs after the upgraded agent's first pass");
        ok("n2", "touch", "/var/tmp/upgrade-done");
        await(
                Duration.ofSeconds(60),
                "job " + job + " ends",
                () -> jobState(job).isEmpty());
        assertEquals("finished", ok("n2", "cat", "/tmp/upgrade-job.out").strip(), "the job ran to its end, untouched");
    }

    @Test
    @Order(6)
    void aFailingStepIsShownWithItsErrorInStatusAndHealthAndRecovers() throws Exception {
        String ready = health("n3");
        assertTrue(
                ready.startsWith("HTTP/1.0 200") && ready.contains("step slurm") && ready.contains("step munge"),
                ready);
        // An admin masked slurmd on n3 (drained, no job there): the agent cannot start it and says why.
        ok("n3", "sh", "-c", "systemctl stop slurmd && systemctl mask slurmd");
        try {
            ok("n3", "systemctl", "restart", "slurmlet-agent");
            await(Duration.ofSeconds(60), "n3's slurm step fails", () -> {
                try {
                    return status().nodes().stream()
                            .filter(n -> n.name().equals("n3"))
                            .flatMap(n -> n.steps().stream())
                            .anyMatch(st -> st.step().equals("slurm")
                                    && st.failed()
                                    && st.lastError().contains("masked"));
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
            String down = health("n3");
            assertTrue(down.startsWith("HTTP/1.0 503") && down.contains("masked"), down);
            String table = ok("n0", "ctl", "slurm", "status");
            assertTrue(table.contains("FAILED") && table.contains("n3 slurm: "), table);
        } finally {
            ok("n3", "systemctl", "unmask", "slurmd");
        }
        Instant fixed = Instant.now();
        ok("n3", "systemctl", "restart", "slurmlet-agent");
        awaitPassesAfter(fixed, "n3");
        assertTrue(health("n3").startsWith("HTTP/1.0 200"));
        assertTrue(ok("n0", "ctl", "slurm", "status").contains("n3 slurm, since recovered: "));
    }

    /**
     * users= takes PrologFlags=Contain away (the baseline has users=slurmlet), a key slurmd reads
     * only at start. The agent of the
     * node that runs a job is held between writing slurm.conf and restarting slurmd (a failpoint),
     * then killed with SIGKILL: once systemd has started it again, it restarts slurmd, which it
     * knows from what it wrote down before the file, not from memory. The job runs on.
     */
    @Test
    @Order(11)
    void anAgentKilledBetweenSlurmConfAndSlurmdsRestartRestartsSlurmdWhenItIsBack() throws Exception {
        // The job runs until the test ends it, however long the agent takes to come back.
        String job = ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-o",
                        "/tmp/held-%j.out",
                        "--wrap",
                        "while [ ! -e /var/tmp/held-done ]; do sleep 0.2; done; echo held-done")
                .strip();
        await(Duration.ofSeconds(30), "the job runs", () -> jobState(job).equals("RUNNING"));
        String node = ok("n0", "squeue", "-h", "-j", job, "-o", "%N").strip();
        ok(
                node,
                "sh",
                "-c",
                "mkdir -p \"$(dirname \"$0\")\" && printf '[Service]\\nEnvironment=SLURMLET_FAILPOINTS=slurm.files-written\\n' >\"$0\"",
                FAILPOINT);
        ok(node, "systemctl", "daemon-reload");
        Instant restarted = Instant.now();
        ok(node, "systemctl", "restart", "slurmlet-agent");
        awaitPassesAfter(restarted, node);
        long slurmdBefore = activeSince(node, "slurmd");
        String agentBefore = ok(node, "systemctl", "show", "-p", "MainPID", "--value", "slurmlet-agent")
                .strip();

        ok("n0", "ctl", "slurm", "set", "users=");
        await(Duration.ofSeconds(60), node + "'s agent holds after writing slurm.conf", () -> {
            try {
                return ok(
                                node,
                                "journalctl",
                                "-u",
                                "slurmlet-agent",
                                "--since",
                                "@" + restarted.getEpochSecond(),
                                "--no-pager",
                                "-o",
                                "cat")
                        .contains("failpoint slurm.files-written: holding here");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertFalse(ok(node, "cat", "/etc/slurm/slurm.conf").contains("PrologFlags=Contain"), "the file is written");
        assertTrue(
                ok(node, "cat", "/var/lib/slurmlet/slurm/owed").startsWith("slurmd RESTART "),
                "the restart is written down");
        assertEquals(slurmdBefore, activeSince(node, "slurmd"), "slurmd is not restarted yet");

        ok(node, "rm", FAILPOINT);
        ok(node, "systemctl", "daemon-reload");
        ok(node, "systemctl", "kill", "-s", "KILL", "slurmlet-agent");
        await(Duration.ofSeconds(90), "slurmd restarted by the agent that came back", () -> {
            try {
                return activeSince(node, "slurmd") > slurmdBefore;
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        String agentAfter = ok(node, "systemctl", "show", "-p", "MainPID", "--value", "slurmlet-agent")
                .strip();
        assertFalse(agentAfter.equals(agentBefore), "a new agent did it");
        await(Duration.ofSeconds(30), "nothing owed", () -> {
            try {
                return on(node, "test", "-e", "/var/lib/slurmlet/slurm/owed").exit() != 0;
            } catch (Exception e) {
                return false;
            }
        });
        assertEquals("RUNNING", jobState(job), "the job runs on");
        ok(node, "touch", "/var/tmp/held-done");
        await(Duration.ofSeconds(60), "the job ends", () -> jobState(job).isEmpty());
        assertEquals("held-done", ok(node, "cat", "/tmp/held-" + job + ".out").strip());
    }
}
