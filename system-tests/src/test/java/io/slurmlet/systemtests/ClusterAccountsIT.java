package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The cluster's accounts on the local cluster: one account the same user on every machine with
 * its keys, a disabled one locked; pam_slurm_adopt with real sshd letting a user into a compute
 * node only while a job of theirs runs there; the leader's NFS export as every machine's /shared,
 * with the homes on it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterAccountsIT extends ClusterTest {

    @Test
    @Order(12)
    void anAccountIsTheSameUserOnEveryMachineWithItsKeysAndADisabledOneIsLocked() throws Exception {
        // The baseline has users=slurmlet and n0's export on /shared: the homes live there.
        String added =
                api("POST", "/v1/users", "{\"email\": \"alice@example.org\", \"ssh_keys\": [\"" + ALICE_KEY + "\"]}");
        assertTrue(added.startsWith("HTTP/1.0 201"), added);
        String uid = null;
        for (String node : NODES) {
            await(Duration.ofSeconds(60), "alice on " + node, () -> {
                try {
                    return on(node, "stat", "-c", "%a %U %G", ALICE_HOME + "/.ssh/authorized_keys")
                            .out()
                            .strip()
                            .equals("600 alice alice");
                } catch (Exception e) {
                    return false;
                }
            });
            String[] passwd = ok(node, "getent", "passwd", "alice").strip().split(":");
            uid = uid == null ? passwd[2] : uid;
            assertTrue(Integer.parseInt(passwd[2]) >= 200000, "from slurmlet's range: " + passwd[2]);
            assertEquals(uid, passwd[2], node + ": the same UID on every machine");
            assertEquals(uid, passwd[3], node + ": a group of the same number");
            assertEquals(ALICE_HOME, passwd[5]);
            assertEquals(
                    ALICE_KEY,
                    ok(node, "cat", ALICE_HOME + "/.ssh/authorized_keys").strip());
            assertEquals(
                    "700 alice", ok(node, "stat", "-c", "%a %U", ALICE_HOME).strip());
        }
        assertTrue(api("POST", "/v1/users/alice/disable", "").startsWith("HTTP/1.0 200"));
        await(Duration.ofSeconds(60), "alice locked on n1", () -> {
            try {
                return ok("n1", "getent", "shadow", "alice").split(":", -1)[7].equals("1");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertEquals(
                ALICE_KEY,
                ok("n1", "cat", ALICE_HOME + "/.ssh/authorized_keys").strip(),
                "a disabled account's files are kept");
    }

    @Test
    @Order(13)
    void pamSlurmAdoptLetsAUserIntoAComputeNodeOnlyWhileAJobOfTheirsRunsThere() throws Exception {
        ensureAlice();
        Path key = RUN.resolve("alice_key");
        java.nio.file.Files.deleteIfExists(key);
        java.nio.file.Files.deleteIfExists(Path.of(key + ".pub"));
        Proc.Result made = Proc.run(
                List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@it", "-f", key.toString()),
                Map.of(),
                30);
        assertEquals(0, made.exit(), made.toString());
        String pub = java.nio.file.Files.readString(Path.of(key + ".pub")).strip();
        ok(
                "n0",
                "sh",
                "-c",
                "umask 077 && printf '%s\\n' \"$0\" >/root/alice_key",
                java.nio.file.Files.readString(key).strip());
        assertTrue(api("POST", "/v1/users/alice/enable", "").startsWith("HTTP/1.0 200"));
        assertTrue(api("PUT", "/v1/users/alice/ssh_keys", "{\"ssh_keys\": [\"" + pub + "\"]}")
                .startsWith("HTTP/1.0 200"));
        for (String node : NODES) {
            ok(node, "systemctl", "start", "ssh");
        }
        await(Duration.ofSeconds(60), "pam_slurm_adopt on n2 and alice's new key everywhere", () -> {
            try {
                return ok("n2", "cat", "/etc/pam.d/sshd").contains("pam_slurm_adopt.so action_adopt_failure=deny")
                        && ok("n2", "cat", ALICE_HOME + "/.ssh/authorized_keys")
                                .strip()
                                .equals(pub)
                        && ok("n0", "cat", ALICE_HOME + "/.ssh/authorized_keys")
                                .strip()
                                .equals(pub);
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        assertFalse(ok("n0", "cat", "/etc/pam.d/sshd").contains("pam_slurm_adopt"), "never on the controller");

        assertEquals("n0", ssh("alice@n0", "hostname").out().strip(), "alice logs in to the controller to submit jobs");
        Proc.Result refused = ssh("alice@n2", "hostname");
        assertTrue(refused.exit() != 0, "no job of alice's on n2: " + refused);

        String job = ok(
                        "n0",
                        "runuser",
                        "-u",
                        "alice",
                        "--",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n2",
                        "-o",
                        "/tmp/alice-%j.out",
                        "--wrap",
                        "sleep 120")
                .strip();
        await(Duration.ofSeconds(30), "alice's job runs", () -> jobState(job).equals("RUNNING"));
        Proc.Result in = ssh("alice@n2", "cat", "/proc/self/cgroup");
        assertEquals(0, in.exit(), in.toString());
        assertTrue(in.out().contains("job_" + job), "adopted into the job's cgroup: " + in.out());
        List<String> session = new ArrayList<>(cluster("exec", "n0"));
        session.addAll(SSH);
        session.addAll(List.of("alice@n2", "sleep", "300"));
        ProcessBuilder pb =
                new ProcessBuilder(session).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(ENV);
        Process open = pb.start();
        await(Duration.ofSeconds(20), "alice's session runs on n2", () -> {
            try {
                return !ok("n2", "pgrep", "-u", "alice", "-f", "^sleep 300$").isBlank();
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        ok("n0", "scancel", job);
        assertTrue(open.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "scancel ends alice's ssh session on n2");
        await(Duration.ofSeconds(30), "alice's job ends", () -> jobState(job).isEmpty());
        assertTrue(ssh("alice@n2", "hostname").exit() != 0, "after scancel alice is out again");

        ok(
                "n0",
                "sh",
                "-c",
                "test -f /root/.ssh/id_ed25519 || ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519");
        String rootPub = ok("n0", "cat", "/root/.ssh/id_ed25519.pub").strip();
        ok(
                "n2",
                "sh",
                "-c",
                "mkdir -p -m 0700 /root/.ssh && printf '%s\\n' \"$0\" >>/root/.ssh/authorized_keys",
                rootPub);
        Proc.Result root = on(
                "n0",
                "ssh",
                "-o",
                "StrictHostKeyChecking=no",
                "-o",
                "UserKnownHostsFile=/dev/null",
                "-o",
                "BatchMode=yes",
                "-o",
                "LogLevel=ERROR",
                "root@n2",
                "hostname");
        assertEquals("n2", root.out().strip(), "root still gets in: " + root);
    }

    @Test
    @Order(14)
    void theServersExportIsEveryMachinesSharedStorageAndHomesLiveThere() throws Exception {
        ok("n0", "ctl", "slurm", "set", "shared.path=/shared", "shared.server=n0");
        for (String node : List.of("n1", "n2", "n3")) {
            await(Duration.ofSeconds(60), "/shared mounted from n0 on " + node, () -> {
                try {
                    return on(node, "findmnt", "-n", "-o", "SOURCE", "/shared")
                            .out()
                            .strip()
                            .equals("n0:/shared");
                } catch (Exception e) {
                    return false;
                }
            });
            assertEquals(
                    "[Unit]\nRequiresMountsFor=/shared",
                    ok(node, "sed", "1d", "/etc/systemd/system/slurmd.service.d/slurmlet-storage.conf")
                            .strip(),
                    "slurmd waits for the storage");
        }
        // bob's account is the baseline's (made once shared storage was there), as the heartbeat jobs' writer.
        await(Duration.ofSeconds(60), "bob's home on the shared storage", () -> {
            try {
                return on("n3", "stat", "-c", "%U %a", "/shared/home/bob")
                        .out()
                        .strip()
                        .equals("bob 700");
            } catch (Exception e) {
                return false;
            }
        });
        // bob submits from n0, whose users step runs in its own pass: wait for bob there too.
        await(Duration.ofSeconds(60), "bob on n0", () -> {
            try {
                return on("n0", "id", "-u", "bob").exit() == 0;
            } catch (Exception e) {
                return false;
            }
        });
        String job = ok(
                        "n0",
                        "runuser",
                        "-u",
                        "bob",
                        "--",
                        "sbatch",
                        "--parsable",
                        "-w",
                        "n1",
                        "-o",
                        "/dev/null",
                        "--wrap",
                        "echo written on $(hostname) > /shared/home/bob/from-job")
                .strip();
        await(Duration.ofSeconds(30), "bob's job " + job + " wrote its file", () -> {
            try {
                return on("n2", "cat", "/shared/home/bob/from-job")
                        .out()
                        .strip()
                        .equals("written on n1");
            } catch (Exception e) {
                return false;
            }
        });
        String uid = ok("n0", "id", "-u", "bob").strip();
        assertEquals(
                uid, ok("n2", "stat", "-c", "%u", "/shared/home/bob/from-job").strip(), "seen on n2 with bob's uid");
        assertEquals(
                uid, ok("n0", "stat", "-c", "%u", "/shared/home/bob/from-job").strip(), "and on the server");
    }
}
