package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The project's shell scripts: none stops without saying why, and what a machine lacks is named. */
class ScriptsIT {

    static final Path ROOT = AgentProcess.ROOT;

    /** Every tracked file that starts with a shell's #!, relative to the repository. */
    static List<String> scripts(String shell) throws Exception {
        List<String> found = new ArrayList<>();
        for (String f : Proc.run(List.of("git", "-C", ROOT.toString(), "ls-files"), Map.of(), 30)
                .out()
                .split("\n")) {
            Path p = ROOT.resolve(f);
            if (!f.isBlank() && Files.isRegularFile(p) && Files.size(p) > 2) {
                // Only the first line, read as bytes: tracked files include binary ones (the container tests'
                // tarballs).
                byte[] head;
                try (var in = Files.newInputStream(p)) {
                    head = in.readNBytes(128);
                }
                String text = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1);
                String first = text.contains("\n") ? text.substring(0, text.indexOf('\n')) : text;
                if (first.equals("#!/usr/bin/env " + shell) || first.equals("#!/bin/" + shell)) {
                    found.add(f);
                }
            }
        }
        return found;
    }

    @Test
    void everyBashScriptStopsOnAnErrorAndSaysWhereAndWhy() throws Exception {
        List<String> bash = scripts("bash");
        assertTrue(bash.size() >= 15 && bash.contains("dev/cluster") && bash.contains(".ci/run"), bash.toString());
        List<String> silent = new ArrayList<>();
        for (String f : bash) {
            String text = Files.readString(ROOT.resolve(f));
            // -E: the trap holds in functions and subshells too; it prints the line, the command and its status.
            if (!text.contains("\nset -Eeuo pipefail\n")
                    || !text.matches(
                            "(?s).*\ntrap 'echo \"[^\"]+: line \\$LINENO: \\\\\"\\$BASH_COMMAND\\\\\" failed \\(exit \\$\\?\\)\" >&2' ERR\n.*")) {
                silent.add(f);
            }
        }
        assertEquals(
                List.of(),
                silent,
                "bash scripts without set -Eeuo pipefail and the ERR trap that says where they stopped");
    }

    @Test
    void aFailingBashScriptNamesItsLineAndCommand() throws Exception {
        // The same two lines as every script, around a command that fails inside a function.
        Proc.Result r = Proc.run(List.of("bash", "-c", """
                set -Eeuo pipefail
                trap 'echo "demo: line $LINENO: \\"$BASH_COMMAND\\" failed (exit $?)" >&2' ERR
                f() { ls /nonexistent-slurmlet-path >/dev/null 2>&1; }
                f
                echo not reached
                """), Map.of(), 30);
        assertEquals(2, r.exit(), r.toString());
        assertTrue(
                r.err().contains("demo: line 3: \"ls /nonexistent-slurmlet-path > /dev/null 2>&1\" failed (exit 2)"),
                r.err());
        assertTrue(!r.out().contains("not reached"), r.out());
    }

    @Test
    void hostToolsNamesWhatThisMachineLacksAndTheCommandThatInstallsIt() throws Exception {
        // A PATH with only what the script itself runs on: every tool it checks is missing.
        Path bin = Files.createTempDirectory("slurmlet-scripts-it");
        try {
            for (String tool : List.of("bash", "cat", "sed", "id", "head", "cut", "awk")) {
                String real = Proc.run(List.of("bash", "-c", "command -v " + tool), Map.of(), 10)
                        .out()
                        .strip();
                Files.createSymbolicLink(bin.resolve(tool), Path.of(real));
            }
            Proc.Result r = Proc.run(
                    List.of(
                            bin.resolve("bash").toString(),
                            ROOT.resolve("dev/host-tools").toString(),
                            "check"),
                    Map.of("PATH", bin.toString()),
                    30);
            assertEquals(1, r.exit(), r.toString());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(
                    r.err()
                            .startsWith(
                                    "host-tools: missing: default-jdk-headless rpm curl mmdebstrap systemd-container util-linux iproute2"),
                    r.err());
            assertTrue(
                    r.err()
                            .contains(
                                    "(install with: apt-get install --no-install-recommends default-jdk-headless rpm curl"),
                    r.err());
        } finally {
            Proc.run(List.of("rm", "-rf", bin.toString()), Map.of(), 10);
        }
        assertEquals(
                0,
                Proc.run(List.of(ROOT.resolve("dev/host-tools").toString(), "check"), Map.of(), 30)
                        .exit(),
                "on this machine (CI installed them) nothing is missing");
    }

    @Test
    void devClusterRefusesAnUnknownSuiteWithTheOnesItKnows() throws Exception {
        Proc.Result r = Proc.run(
                List.of(ROOT.resolve("system-tests/cluster/node-image").toString(), "path", "buster"), Map.of(), 30);
        assertEquals(2, r.exit(), r.toString());
        assertEquals(
                "node-image: unknown suite 'buster': use one of bookworm trixie forky",
                r.err().strip());
        Proc.Result node = Proc.run(
                List.of(ROOT.resolve("dev/cluster").toString(), "up", "--node", "n9=bookworm"),
                Map.of("SLURMLET_CLUSTER_DIR", "/var/tmp/slurmlet-it-scripts"),
                30);
        assertEquals(2, node.exit(), node.toString());
        assertTrue(node.err().contains("--node n9=bookworm: n9 is not one of the machines (n0 n1 n2 n3)"), node.err());

        boolean hybrid = Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .anyMatch(l -> l.split(" ")[2].equals("cgroup"));
        if (hybrid) { // as on CI's machines: forky is refused before anything is built or booted, and told why
            Proc.Result forky = Proc.run(
                    List.of(ROOT.resolve("dev/cluster").toString(), "up", "--suite", "forky"),
                    Map.of("SLURMLET_CLUSTER_DIR", "/var/tmp/slurmlet-it-scripts"),
                    30);
            assertEquals(1, forky.exit(), forky.toString());
            assertTrue(
                    forky.err()
                            .contains(
                                    "forky's Slurm 26.05 cannot run slurmd on this host: it has cgroup v1 hierarchies"),
                    forky.err());
            assertTrue(!Files.exists(Path.of("/var/tmp/slurmlet-it-scripts")), "nothing was made");
        }
    }

    /** A mistyped option of {@code dev/cluster up} is named with the options it takes, before anything is made. */
    @Test
    void devClusterUpNamesAnUnknownOptionAndTheOnesItTakes() throws Exception {
        Path dir = Path.of("/var/tmp/slurmlet-it-scripts");
        for (String typo : List.of("--container", "--containers=yes")) {
            Proc.Result r = Proc.run(
                    List.of(ROOT.resolve("dev/cluster").toString(), "up", "--suite", "trixie", typo),
                    Map.of("SLURMLET_CLUSTER_DIR", dir.toString()),
                    30);
            assertEquals(2, r.exit(), r.toString());
            assertEquals(
                    "dev/cluster: up: unknown option '" + typo
                            + "': its options are --suite SUITE, --node NODE=SUITE and --containers",
                    r.err().strip());
        }
        assertTrue(!Files.exists(dir), "nothing was made");
    }

    /**
     * The join token never enters the agent's environment: {@code join --token -} reads it from stdin
     * into a root-only file of its own, and the launcher moves one an older join.env holds there,
     * out of join.env and out of what the agent (here a stub that prints its environment) is started with.
     */
    @Test
    void theJoinTokenGoesToAFileOfItsOwnAndNeverToTheAgentsEnvironment() throws Exception {
        Path dir = Files.createTempDirectory("slurmlet-join");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.copy(ROOT.resolve("packaging/bin/slurmlet-agent"), bin.resolve("slurmlet-agent"));
        Files.writeString(bin.resolve("slurmlet-java"), "#!/bin/sh\nenv\n");
        bin.resolve("slurmlet-java").toFile().setExecutable(true);
        String token = "4k2j9x0a." + "s".repeat(43);
        String hash = "sha256:" + "0".repeat(64);
        Map<String, String> env = Map.of("SLURMLET_CONF_DIR", conf.toString(), "SLURMLET_JOIN_NO_START", "1");
        String line = "printf '%s\\n' " + token + " | " + bin.resolve("slurmlet-agent")
                + " join --leader https://n0:7818 --ca-hash " + hash + " --token -";
        Proc.Result joined = Proc.run(List.of("sh", "-c", line), env, 30);
        assertEquals(0, joined.exit(), joined.toString());
        assertEquals(token + "\n", Files.readString(conf.resolve("join-token")));
        assertEquals(
                "rw-------",
                java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(conf.resolve("join-token"))));
        String joinEnv = Files.readString(conf.resolve("join.env"));
        assertTrue(
                !joinEnv.contains(token)
                        && joinEnv.contains("SLURMLET_NODE_JOIN_TOKEN_FILE=" + conf.resolve("join-token") + "\n"),
                joinEnv);

        Proc.Result empty = Proc.run(
                List.of(
                        "sh",
                        "-c",
                        "printf '' | " + bin.resolve("slurmlet-agent") + " join --leader https://n0:7818 "
                                + "--ca-hash " + hash + " --token -"),
                env,
                30);
        assertEquals(2, empty.exit(), empty.toString());

        // A join.env of before: the unit would have put the token into the agent's environment.
        Files.delete(conf.resolve("join-token"));
        Files.writeString(
                conf.resolve("join.env"), "SLURMLET_LEADER_ENABLED=false\nSLURMLET_NODE_JOIN_TOKEN=" + token + "\n");
        Proc.Result started = Proc.run(
                List.of(bin.resolve("slurmlet-agent").toString()),
                Map.of(
                        "SLURMLET_CONF_DIR",
                        conf.toString(),
                        "SLURMLET_CACHE_DIR",
                        dir.resolve("cache").toString(),
                        "SLURMLET_NODE_JOIN_TOKEN",
                        token,
                        "SLURMLET_LEADER_ENABLED",
                        "false"),
                30);
        assertEquals(0, started.exit(), started.toString());
        assertTrue(
                !started.out().contains(token)
                        && started.out().contains("SLURMLET_NODE_JOIN_TOKEN_FILE=" + conf.resolve("join-token")),
                started.out());
        assertEquals(token + "\n", Files.readString(conf.resolve("join-token")));
        assertEquals(
                "SLURMLET_LEADER_ENABLED=false\nSLURMLET_NODE_JOIN_TOKEN_FILE=" + conf.resolve("join-token") + "\n",
                Files.readString(conf.resolve("join.env")));
    }
}
