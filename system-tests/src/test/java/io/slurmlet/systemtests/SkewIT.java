package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SlurmStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Version skew on a real cluster ({@code dev/cluster up --suite trixie --node n3=bookworm}): the
 * controller and two nodes run Debian trixie's Slurm 24.11, n3 bookworm's 22.05, which slurmctld
 * 24.11 cannot take. The leader says so with both versions and the fix, n3's slurmd is never
 * started, and the rest of the cluster runs jobs undisturbed. Then n3 is reinstalled on trixie
 * ({@code dev/cluster reimage n3 trixie}: its OS replaced, slurmlet's own files kept, as a site
 * upgrades a machine) while a job runs on n1, and the cluster converges with no step of an admin's.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SkewIT {

    static final Path RUN = Path.of("/var/tmp/slurmlet-it-skew");
    static final Map<String, String> ENV = Map.of("SLURMLET_CLUSTER_DIR", RUN.toString());

    @BeforeAll
    static void up() throws Exception {
        assertEquals(
                "0",
                Proc.run(List.of("id", "-u"), Map.of(), 10).out().strip(),
                "run the system tests as root, as CI does");
        Proc.run(cluster("down"), ENV, 120);
        Proc.Result r = Proc.run(cluster("up", "--suite", "trixie", "--node", "n3=bookworm"), ENV, 900);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("n3 has Slurm 22.05"), "up says what the leader reports:\n" + r.err());
    }

    @AfterAll
    static void down() throws Exception {
        Proc.Result r = Proc.run(cluster("down"), ENV, 180);
        assertEquals(0, r.exit(), r.toString());
    }

    static List<String> cluster(String... args) {
        List<String> command =
                new ArrayList<>(List.of(AgentProcess.ROOT.resolve("dev/cluster").toString()));
        command.addAll(Arrays.asList(args));
        return command;
    }

    static String ok(String node, String... command) throws Exception {
        List<String> args = new ArrayList<>(List.of("exec", node));
        args.addAll(Arrays.asList(command));
        Proc.Result r = Proc.run(cluster(args.toArray(String[]::new)), ENV, 120);
        assertEquals(0, r.exit(), () -> node + ": " + String.join(" ", command) + "\n" + r);
        return r.out();
    }

    @Test
    @Order(1)
    void anOlderSlurmThanTheControllerTakesIsReportedWithBothVersionsAndTheFixAndNothingElseIsDisturbed()
            throws Exception {
        SlurmStatus status =
                SettingsJson.STRICT.readValue(ok("n0", "ctl", "slurm", "status", "-o", "json"), SlurmStatus.class);
        String problems = status.problems().toString();
        assertTrue(
                problems.contains("n3 has Slurm 22.05.8")
                        && problems.contains("the controller n0's 24.11.5")
                        && problems.contains("upgrade Slurm on n3 to 23.02 or later"),
                problems);
        assertEquals(1, status.problems().size(), problems);

        assertEquals(
                "22.05.8",
                ok("n3", "dpkg-query", "-W", "-f=${Version}", "slurmd").replaceFirst("-.*", ""));
        Proc.Result slurmd = Proc.run(cluster("exec", "n3", "systemctl", "is-active", "slurmd"), ENV, 30);
        assertEquals("inactive", slurmd.out().strip(), "n3's slurmd is not started: " + slurmd);
        assertEquals("active", ok("n3", "systemctl", "is-active", "munge").strip(), "the rest of n3's machine is kept");

        List<String> sinfo =
                List.of(ok("n0", "sinfo", "-h", "-N", "-o", "%N|%T|%E").strip().split("\n"));
        // 24.11 keeps a reason after a resume: a node slurmlet drained for a moment while it
        // started may show "slurmlet: lent" (ClusterTest.idleAfterADrain).
        for (String node : List.of("n1", "n2")) {
            assertTrue(
                    sinfo.contains(node + "|idle|none") || sinfo.contains(node + "|idle|slurmlet: lent"),
                    sinfo::toString);
        }
        List<String> hosts = new ArrayList<>(
                List.of(ok("n0", "srun", "-N2", "-t", "1", "hostname").strip().split("\n")));
        hosts.sort(null);
        assertEquals(List.of("n1", "n2"), hosts, "the nodes of the controller's version run jobs");
        assertFalse(ok("n0", "systemctl", "is-active", "slurmctld").isBlank());
    }

    @Test
    @Order(2)
    void afterTheOldNodeIsUpgradedTheClusterConvergesWithNoManualStepAndTheRunningJobIsUntouched() throws Exception {
        String controller = ok("n0", "systemctl", "show", "-p", "InvocationID", "--value", "slurmctld")
                .strip();
        // The job runs until the test lets it end: however long n3's reimage takes, it is still running.
        ok("n1", "rm", "-f", "/var/tmp/skew-done");
        String job = ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n1",
                        "-o",
                        "/tmp/skew-job.out",
                        "--wrap",
                        "while [ ! -e /var/tmp/skew-done ]; do sleep 0.2; done; echo finished")
                .strip();
        ClusterTest.await(
                Duration.ofSeconds(20), "job " + job + " runs", () -> state(job).equals("RUNNING"));

        Proc.Result reimage = Proc.run(cluster("reimage", "n3", "trixie"), ENV, 600);
        assertEquals(0, reimage.exit(), reimage.toString());
        assertEquals(
                "24.11.5",
                ok("n3", "dpkg-query", "-W", "-f=${Version}", "slurmd").replaceFirst("-.*", ""));

        ClusterTest.await(Duration.ofSeconds(90), "the leader reports no problem and n3 in Slurm", () -> {
            try {
                SlurmStatus status = SettingsJson.STRICT.readValue(
                        ok("n0", "ctl", "slurm", "status", "-o", "json"), SlurmStatus.class);
                return status.problems().isEmpty()
                        && ok("n0", "sinfo", "-h", "-N", "-n", "n3", "-o", "%N|%T|%E")
                                .strip()
                                .equals("n3|drained|slurmlet: not lent");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertEquals("active", ok("n3", "systemctl", "is-active", "slurmd").strip());
        assertEquals("RUNNING", state(job), "the job on n1 runs on through n3's upgrade");

        ok("n0", "ctl", "slurm", "lend", "n3");
        ClusterTest.await(Duration.ofSeconds(60), "n3 lent and idle", () -> {
            try {
                String n3 =
                        ok("n0", "sinfo", "-h", "-N", "-n", "n3", "-o", "%T|%E").strip();
                return n3.equals("idle|none") || n3.equals("idle|slurmlet: lent");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertEquals("n3", ok("n0", "srun", "-w", "n3", "-t", "1", "hostname").strip());

        assertEquals("RUNNING", state(job), "the job on n1 runs on through n3's lend");
        ok("n1", "touch", "/var/tmp/skew-done");
        ClusterTest.await(
                Duration.ofSeconds(40), "job " + job + " ends", () -> state(job).equals("COMPLETED"));
        assertEquals("finished", ok("n1", "cat", "/tmp/skew-job.out").strip());
        assertEquals(
                controller,
                ok("n0", "systemctl", "show", "-p", "InvocationID", "--value", "slurmctld")
                        .strip(),
                "slurmctld was not restarted");
    }

    static String state(String job) {
        try {
            String squeue = ok("n0", "squeue", "-h", "-j", job, "-o", "%T").strip();
            return squeue.isEmpty()
                    ? ok("n0", "scontrol", "show", "job", job).replaceAll("(?s).*JobState=(\\S+).*", "$1")
                    : squeue;
        } catch (Exception | AssertionError e) {
            return "unknown: " + e.getMessage();
        }
    }
}
