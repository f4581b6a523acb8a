package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Lending on the local cluster, with the site's platform hooks on the leader: unlending under a
 * job, a drain hook busy three times, an admin's drain kept, a node taken out of the nodes during
 * a job, slurmlet disabled during a job, several nodes lent and unlent at once under jobs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterLendingIT extends ClusterTest {

    @Test
    @Order(8)
    void unlendingDuringAJobDrainsTheNodeLetsTheJobFinishAndReleasesItOnce() throws Exception {
        ok("n0", "sh", "-c", ": >/var/log/platform-hook.log");
        String job = ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n1",
                        "-o",
                        "/tmp/lent-job.out",
                        "--wrap",
                        "sleep 6; echo finished")
                .strip();
        await(
                Duration.ofSeconds(20),
                "job " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        ok("n0", "ctl", "slurm", "unlend", "n1");
        awaitPhase("n1", "RECLAIMING", Duration.ofSeconds(10));
        awaitSinfo("n1", "batch|draining|slurmlet: reclaiming for the platform");
        await(Duration.ofSeconds(10), "the leader says n1 waits for job " + job, () -> {
            try {
                return ("job " + job + " of root still running")
                        .equals(lending("n1").get("waiting_for"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertEquals(0, count(hookLog(), "release n1"), "never released while a job runs");
        awaitPhase("n1", "PLATFORM", Duration.ofSeconds(40));
        assertEquals("finished", ok("n1", "cat", "/tmp/lent-job.out").strip(), "the job ran to its end, untouched");
        awaitSinfo("n1", "batch|drained|slurmlet: not lent");
        Thread.sleep(2_000);
        assertEquals(1, count(hookLog(), "release n1"), hookLog());
    }

    @Test
    @Order(9)
    void aDrainHookBusyThreeTimesThenFreeLendsTheNode() throws Exception {
        // The hook counts its own runs in its log: a fresh log has it answer busy three times again.
        ok("n0", "sh", "-c", ": >/var/log/platform-hook.log");
        ok("n0", "ctl", "slurm", "lend", "n3");
        awaitPhase("n3", "LENT", Duration.ofSeconds(30));
        assertEquals(4, count(hookLog(), "drain n3"), hookLog());
        awaitSinfo("n3", idleAfterADrain("batch", "slurmlet: lent"));
        assertEquals("n3", ok("n0", "srun", "-w", "n3", "-t", "1", "hostname").strip());
    }

    @Test
    @Order(10)
    void anAdminsDrainSurvivesALendAndAnUnlend() throws Exception {
        ok("n0", "scontrol", "update", "nodename=n2", "state=drain", "reason=admin: bad dimm");
        ok("n0", "ctl", "slurm", "unlend", "n2");
        awaitPhase("n2", "PLATFORM", Duration.ofSeconds(30));
        awaitSinfo("n2", "batch|drained|admin: bad dimm");
        ok("n0", "ctl", "slurm", "lend", "n2");
        awaitPhase("n2", "LENT", Duration.ofSeconds(30));
        Thread.sleep(3_000);
        assertEquals("batch|drained|admin: bad dimm", sinfo().get("n2"), "slurmlet never lifts a drain it did not set");
        assertTrue(String.valueOf(lending("n2").get("waiting_for"))
                .contains("drained in Slurm by someone else (\"admin: bad dimm\")"));
        ok("n0", "scontrol", "update", "nodename=n2", "state=resume");
        awaitSinfo("n2", idleAfterADrain("batch", "admin: bad dimm"));
    }

    @Test
    @Order(15)
    void aNodeTakenOutOfTheNodesDuringAJobIsReclaimedFirstAndLeavesSlurmOnlyOnceTheJobHasEnded() throws Exception {
        Instant since = Instant.now();
        ok("n0", "ctl", "slurm", "set", "nodes=n1,n2,n3", "lent=n1,n2");
        awaitPhase("n1", "LENT", Duration.ofSeconds(30));
        await(Duration.ofSeconds(30), "n1 idle in Slurm", () -> {
            try {
                return sinfo().getOrDefault("n1", "").startsWith("batch|idle|");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        String job = heartbeatJob("n1", "leave", 15);
        await(
                Duration.ofSeconds(20),
                "job " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        String slurmd = pid("n1", "slurmd");

        ok("n0", "ctl", "slurm", "set", "nodes=n2,n3", "lent=n2");
        awaitPhase("n1", "RECLAIMING", Duration.ofSeconds(10));
        await(Duration.ofSeconds(10), "the leader says n1 waits for job " + job + ", then leaves", () -> {
            try {
                return ("job " + job + " of bob still running, then it leaves Slurm")
                        .equals(lending("n1").get("waiting_for"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        awaitSinfo("n1", "batch|draining|slurmlet: reclaiming for the platform");
        assertTrue(slurmConfNodes().contains("n1"), "slurm.conf keeps n1 while its job runs");
        assertEquals(
                "n0:/shared",
                ok("n1", "findmnt", "-n", "-o", "SOURCE", "/shared").strip(),
                "and n1 its mount");
        assertEquals("RUNNING", jobState(job));
        assertEquals(slurmd, pid("n1", "slurmd"), "n1's slurmd untouched");
        // A job waiting in the queue that names n1 (-x n1; n3 is the platform's, so it waits) holds n1 in Slurm too:
        // Slurm fails a job whose named node leaves slurm.conf.
        String queued = ok("n0", "sbatch", "--parsable", "-x", "n1", "-w", "n3", "-o", "/dev/null", "--wrap", "true")
                .strip();
        await(Duration.ofSeconds(60), "job " + job + " ends and n1 waits for the queued job " + queued, () -> {
            try {
                return String.valueOf(lending("n1").get("waiting_for"))
                        .startsWith("job " + queued + " of root in the queue names this node");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertEquals("RECLAIMING", lending("n1").get("phase"));
        assertTrue(slurmConfNodes().contains("n1"), "slurm.conf keeps n1 while a queued job names it");
        assertEquals("PENDING", jobState(queued));
        ok("n0", "scancel", queued);

        awaitPhase("n1", "PLATFORM", Duration.ofSeconds(60));
        assertEquals("finished", ok("n0", "cat", "/shared/home/bob/leave.out").strip(), "the job ran to its end");
        await(Duration.ofSeconds(60), "n1 leaves slurm.conf and sinfo", () -> {
            try {
                return !slurmConfNodes().contains("n1") && !sinfo().containsKey("n1");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertTrue(longestGap("leave") < 1.0, "the job's writes to /shared never stopped for a second");
        assertEquals("", slurmctldFatals(since));
        assertEquals("active", ok("n0", "systemctl", "is-active", "slurmctld").strip());
        assertEquals(
                List.of("n2"),
                Arrays.stream(ok("n0", "srun", "-w", "n2", "-t", "1", "hostname")
                                .strip()
                                .split("\n"))
                        .toList());
    }

    @Test
    @Order(16)
    void disablingSlurmletDuringAJobGivesTheNodeBackOnlyOnceTheJobHasEndedAndStopsNoDaemon() throws Exception {
        Instant since = Instant.now();
        awaitPhase("n2", "LENT", Duration.ofSeconds(30));
        String job = heartbeatJob("n2", "disable", 12);
        await(
                Duration.ofSeconds(20),
                "job " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        String slurmctld = pid("n0", "slurmctld");
        String slurmd = pid("n2", "slurmd");

        ok("n0", "ctl", "slurm", "set", "enabled=false");
        awaitPhase("n2", "RECLAIMING", Duration.ofSeconds(10));
        awaitSinfo("n2", "batch|draining|slurmlet: reclaiming for the platform");
        assertEquals("RUNNING", jobState(job));
        assertEquals(
                "n0:/shared",
                ok("n2", "findmnt", "-n", "-o", "SOURCE", "/shared").strip());
        finish("disable", List.of(job));

        awaitPhase("n2", "PLATFORM", Duration.ofSeconds(60));
        assertEquals("finished", ok("n0", "cat", "/shared/home/bob/disable.out").strip(), "the job ran to its end");
        assertTrue(longestGap("disable") < 1.0, "the job's writes to /shared never stopped for a second");
        // Every machine applied the plans that followed (n2 out of Slurm): a wait on that, not on a pass after
        // now, which may come only at the next resync (a minute) where nothing follows on its own.
        awaitSettled(status().revision());
        // Left as it was: what is installed stays installed, and nothing was stopped.
        assertEquals(slurmctld, pid("n0", "slurmctld"));
        assertEquals(slurmd, pid("n2", "slurmd"));
        assertEquals("", slurmctldFatals(since));

        ok("n0", "ctl", "slurm", "set", "enabled=true");
        awaitPhase("n2", "LENT", Duration.ofSeconds(30));
        await(Duration.ofSeconds(30), "n2 runs jobs again", () -> {
            try {
                return on("n0", "srun", "-w", "n2", "-t", "1", "hostname")
                        .out()
                        .strip()
                        .equals("n2");
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    @Order(20)
    void lendingAndUnlendingSeveralNodesAtOnceUnderJobsHurtsNoJob() throws Exception {
        underJobs("lend-several", List.of("n1", "n2"), List.of("n3"), "lent=n3");
        awaitPhase("n3", "LENT", Duration.ofSeconds(30));
        awaitPhase("n1", "PLATFORM", Duration.ofSeconds(60));
        awaitPhase("n2", "PLATFORM", Duration.ofSeconds(60));
        ok("n0", "ctl", "slurm", "set", "lent=n1,n2");
        awaitPhase("n1", "LENT", Duration.ofSeconds(30));
        awaitPhase("n2", "LENT", Duration.ofSeconds(30));
    }
}
