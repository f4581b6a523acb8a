package io.slurmlet.agent.system.linux;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxCommandsTest {

    private static final Duration TEN_S = Duration.ofSeconds(10);
    private final LinuxCommands commands = new LinuxCommands();

    @Test
    void trueExitsWithZeroAndPrintsNothing() throws Exception {
        assertEquals(new Result(0, "", ""), commands.run(List.of("true"), TEN_S));
    }

    @Test
    void falseExitsWithOneAndRunCheckedSaysSo() throws Exception {
        assertEquals(1, commands.run(List.of("false"), TEN_S).exit());
        CommandFailed e = assertThrows(CommandFailed.class, () -> commands.runChecked(List.of("false"), TEN_S));
        assertEquals(CommandFailed.Kind.EXITED, e.kind());
        assertEquals("`false` exited with status 1 and printed nothing", e.getMessage());
    }

    @Test
    void stdoutStderrAndExitStatusAreKeptApart() throws Exception {
        List<String> argv = List.of("sh", "-c", "echo out; echo err >&2; exit 3");
        Result r = commands.run(argv, TEN_S);
        assertEquals(new Result(3, "out\n", "err\n"), r);
        CommandFailed e = assertThrows(CommandFailed.class, () -> r.orThrow(argv));
        assertEquals("`sh -c 'echo out; echo err >&2; exit 3'` exited with status 3; it printed: err", e.getMessage());
        assertEquals(3, e.exit());
    }

    @Test
    void theEnvironmentHasLcAllC() throws Exception {
        assertEquals(
                "C\n", commands.run(List.of("sh", "-c", "echo $LC_ALL"), TEN_S).stdout());
    }

    /** Nothing the agent was started with (a join token of an old join.env, HOME, a proxy's password) reaches a command. */
    @Test
    void theEnvironmentIsMadeFromNothingButPathAndLcAll() throws Exception {
        assertTrue(
                System.getenv().containsKey("PATH") && System.getenv().size() > 2,
                "this JVM has an environment of its own");
        String env = commands.run(List.of("env", "-0"), TEN_S).stdout();
        List<String> names = java.util.Arrays.stream(env.split("\0"))
                .filter(l -> !l.isEmpty())
                .map(l -> l.substring(0, l.indexOf('=')))
                .sorted()
                .toList();
        assertEquals(List.of("LC_ALL", "PATH"), names, env);
        assertEquals(
                commands.environment().get("PATH"),
                commands.run(List.of("sh", "-c", "printf %s \"$PATH\""), TEN_S).stdout());
        assertTrue(
                commands.environment().get("PATH").endsWith("/usr/local/sbin:/usr/sbin:/sbin")
                        || commands.environment().get("PATH").contains("/usr/sbin"),
                commands.environment().toString());
    }

    @Test
    void stdinIsClosed() throws Exception {
        // cat would wait forever on an open stdin.
        assertEquals(new Result(0, "", ""), commands.run(List.of("cat"), Duration.ofSeconds(5)));
    }

    @Test
    void aMissingProgramIsNotInstalledRatherThanFailed() throws Exception {
        CommandFailed e =
                assertThrows(CommandFailed.class, () -> commands.run(List.of("slurmlet-no-such-program", "-V"), TEN_S));
        assertEquals(CommandFailed.Kind.NOT_FOUND, e.kind());
        assertTrue(e.notInstalled());
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "`slurmlet-no-such-program -V` could not run: slurmlet-no-such-program is not installed (not found in "),
                e.getMessage());
        assertTrue(e.getMessage().contains("/usr/sbin"), e.getMessage());

        CommandFailed byPath =
                assertThrows(CommandFailed.class, () -> commands.run(List.of("/nonexistent/slurmd"), TEN_S));
        assertTrue(byPath.notInstalled());
    }

    @Test
    void aFileThatIsNotExecutableCannotBeStarted(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script"), "#!/bin/sh\necho hi\n");
        CommandFailed e = assertThrows(CommandFailed.class, () -> commands.run(List.of(script.toString()), TEN_S));
        assertEquals(CommandFailed.Kind.NOT_STARTED, e.kind());
        assertTrue(e.getMessage().contains("could not be started"), e.getMessage());
    }

    @Test
    void aCommandPastItsDeadlineIsKilledAndTheCallReturnsFast() throws Exception {
        long start = System.nanoTime();
        CommandFailed e =
                assertThrows(CommandFailed.class, () -> commands.run(List.of("sleep", "30"), Duration.ofMillis(300)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(CommandFailed.Kind.PAST_DEADLINE, e.kind());
        assertEquals(
                "`sleep 30` ran past its deadline of 0.3 s and was killed with its child processes", e.getMessage());
        assertTrue(ms < 3_000, "took " + ms + " ms");
    }

    @Test
    void theChildrenOfACommandPastItsDeadlineAreKilledToo(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("pid");
        long start = System.nanoTime();
        CommandFailed e = assertThrows(
                CommandFailed.class,
                () -> commands.run(
                        List.of("sh", "-c", "sleep 30 & echo $! > " + pidFile + "; echo waiting >&2; wait"),
                        Duration.ofMillis(500)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(CommandFailed.Kind.PAST_DEADLINE, e.kind());
        assertTrue(e.getMessage().endsWith("; it had printed: waiting"), e.getMessage());
        assertTrue(ms < 3_000, "took " + ms + " ms");
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        // The kill is sent; give the kernel a moment.
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !running(pid));
        assertFalse(running(pid), "the background sleep still runs");
    }

    /**
     * True when {@code pid} exists and is not a zombie: the killed orphan is reparented to PID 1,
     * which in some containers never reaps it, and {@link ProcessHandle#isAlive} counts zombies.
     */
    private static boolean running(long pid) throws Exception {
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(stat)) {
            return false;
        }
        String s = Files.readString(stat);
        return s.charAt(s.lastIndexOf(')') + 2) != 'Z';
    }

    @Test
    void fiveMegabytesOnEachStreamNeitherDeadlockNorFillMemory() throws Exception {
        long start = System.nanoTime();
        Result r = commands.run(
                List.of("sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x; head -c 5000000 /dev/zero >&2"),
                Duration.ofSeconds(30));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(0, r.exit());
        String note = "\n[slurmlet: output cut after 1048576 bytes; 3951424 more bytes were not kept]\n";
        assertEquals("x".repeat(LinuxCommands.OUTPUT_CAP) + note, r.stdout());
        assertTrue(r.stderr().endsWith(note));
        assertEquals(LinuxCommands.OUTPUT_CAP + note.length(), r.stderr().length());
        assertTrue(ms < 10_000, "took " + ms + " ms");
    }

    @Test
    void theSearchPathAddsTheSbinFolders() throws Exception {
        assertEquals(
                List.of(Path.of("/bin"), Path.of("/usr/sbin"), Path.of("/usr/local/sbin"), Path.of("/sbin")),
                LinuxCommands.defaultSearchPath("/bin::/usr/sbin"));
    }
}
