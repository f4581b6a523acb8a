package io.slurmlet.agent.system.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** slurmd's reread: one re-execution at a time, never a SIGHUP into one under way. */
class SystemdServicesTest {

    static final List<String> MAIN_PID = List.of("systemctl", "show", "-p", "MainPID", "--value", "slurmd");
    static final List<String> HUP = List.of("systemctl", "kill", "--kill-whom=main", "--signal=HUP", "slurmd");

    long now;
    final FakeCommands commands = new FakeCommands()
            .answer(List.of("systemctl", "is-active", "--quiet", "slurmd"), Commands.Result.ok(""))
            .answer(HUP, Commands.Result.ok(""));

    SystemdServices services() {
        return new SystemdServices(commands, d -> now += d.toNanos(), () -> now);
    }

    /** The main PIDs systemd gives, one a look; the last one stays. */
    void pids(String... pids) {
        Deque<String> left = new ArrayDeque<>(List.of(pids));
        commands.answerPrefix(
                MAIN_PID, call -> Commands.Result.ok((left.size() > 1 ? left.poll() : left.peek()) + "\n"));
    }

    /** A main process's start, read from /proc, on the clock of /proc/uptime: this JVM's own, as a daemon's. */
    @Test
    void aMainProcessStartIsReadFromProcOnTheBootClock() throws Exception {
        pids(Long.toString(ProcessHandle.current().pid()));
        SystemdServices services = services();
        long started = services.mainStartedMillis("slurmd").orElseThrow();
        long now = services.bootMillis();
        long up = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
        assertTrue(
                Math.abs((now - started) - up) < 3_000,
                "this JVM started %d ms before now by /proc, and has run %d ms by itself".formatted(now - started, up));
        pids("0");
        assertTrue(services().mainStartedMillis("slurmd").isEmpty(), "none runs");
    }

    @Test
    void aDaemonThatKeepsItsPidIsSignalledOnceTheGraceForAReconfigureOnItsWayIsOver() throws Exception {
        pids("611");
        services().reread("slurmd");
        assertEquals(1, commands.log().stream().filter(HUP::equals).count());
        assertTrue(
                now >= SystemdServices.REREAD_GRACE.toNanos()
                        && now
                                < SystemdServices.REREAD_GRACE.toNanos()
                                        + Duration.ofMillis(400).toNanos(),
                "22.05 keeps its PID: signalled right after the grace, " + now);
    }

    @Test
    void aReExecutionUnderWayIsLetSettleForASecondBeforeTheSignal() throws Exception {
        // The controller's reconfigure arrives 1.8 s in: slurmd re-executes (611 → 640 → 655, the handoff), then stays.
        pids("611", "611", "611", "611", "611", "611", "611", "611", "611", "640", "655");
        services().reread("slurmd");
        List<List<String>> log = commands.log();
        assertEquals(1, log.stream().filter(HUP::equals).count());
        assertEquals(HUP, log.get(log.size() - 1));
        long lastChange = Duration.ofMillis(2000).toNanos(); // the 10th look, at 2.0 s, saw 655
        assertTrue(
                now >= lastChange + SystemdServices.SETTLED.toNanos(),
                "signalled only once 655 had stayed a second: " + now);
    }

    @Test
    void aDaemonThatNeverSettlesIsSignalledAtTheLimitAndOneThatIsNotActiveNotAtAll() throws Exception {
        String[] flapping = new String[200];
        for (int i = 0; i < flapping.length; i++) {
            flapping[i] = Integer.toString(700 + i);
        }
        pids(flapping);
        services().reread("slurmd");
        assertTrue(now >= SystemdServices.SETTLE_LIMIT.toNanos(), "waited to the limit: " + now);
        assertEquals(1, commands.log().stream().filter(HUP::equals).count());

        FakeCommands inactive = new FakeCommands()
                .answer(MAIN_PID, "0\n")
                .answer(List.of("systemctl", "is-active", "--quiet", "slurmd"), new Commands.Result(3, "", ""))
                .answerPrefix(
                        List.of("systemctl", "show", "--property=Id,ActiveState,SubState,Result,NRestarts"),
                        Commands.Result.ok("Id=slurmd.service\nActiveState=inactive\nSubState=dead\nResult=success\n"));
        new SystemdServices(inactive, d -> now += d.toNanos(), () -> now).reread("slurmd");
        assertTrue(
                inactive.log().stream().noneMatch(HUP::equals), inactive.log().toString());
    }

    /** The answers of is-active and of systemctl show, one a look each; the last ones stay. */
    FakeCommands transitions(List<Integer> exits, List<String> states) {
        Deque<Integer> e = new ArrayDeque<>(exits);
        Deque<String> st = new ArrayDeque<>(states);
        return new FakeCommands()
                .answerPrefix(
                        List.of("systemctl", "is-active"),
                        call -> new Commands.Result(e.size() > 1 ? e.poll() : e.peek(), "", ""))
                .answerPrefix(
                        List.of("systemctl", "show", "--property=Id,ActiveState,SubState,Result,NRestarts"),
                        call -> Commands.Result.ok("Id=slurmd.service\n" + (st.size() > 1 ? st.poll() : st.peek())));
    }

    @Test
    void aDaemonCaughtInItsReExecutionIsAskedAgainUntilItRuns() throws Exception {
        // Right after a SIGHUP: activating for two looks, then active again.
        FakeCommands c = transitions(List.of(3, 3, 0), List.of("ActiveState=activating\nSubState=start\n"));
        assertTrue(new SystemdServices(c, d -> now += d.toNanos(), () -> now).isActive("slurmd"));
        assertEquals(
                3, c.log().stream().filter(a -> a.get(1).equals("is-active")).count());
        assertTrue(now < SystemdServices.TRANSITION_LIMIT.toNanos(), "no longer than it took: " + now);
    }

    @Test
    void aStopThatEndsIsNotRunningAndOneStillOnItsWayAtTheLimitIsTakenForWhatItIs() throws Exception {
        FakeCommands stopping = transitions(
                List.of(3),
                List.of(
                        "ActiveState=deactivating\nSubState=stop-sigterm\n",
                        "ActiveState=inactive\nSubState=dead\nResult=success\n"));
        assertTrue(!new SystemdServices(stopping, d -> now += d.toNanos(), () -> now).isActive("slurmd"), "stopped");

        now = 0;
        FakeCommands starting = transitions(List.of(3), List.of("ActiveState=activating\nSubState=start\n"));
        assertTrue(
                new SystemdServices(starting, d -> now += d.toNanos(), () -> now).isActive("slurmd"),
                "still starting: on its way up");
        assertTrue(now >= SystemdServices.TRANSITION_LIMIT.toNanos(), "waited to the limit: " + now);

        now = 0;
        FakeCommands crashed =
                transitions(List.of(3), List.of("ActiveState=activating\nSubState=auto-restart\nResult=signal\n"));
        assertTrue(
                !new SystemdServices(crashed, d -> now += d.toNanos(), () -> now).isActive("slurmd"),
                "waiting for its own Restart=: down, at once (the step starts it, which clears the start limit)");
        assertEquals(0, now, "not waited for");

        FakeCommands failed =
                transitions(List.of(3), List.of("ActiveState=failed\nSubState=failed\nResult=exit-code\n"));
        now = 0;
        assertTrue(!new SystemdServices(failed, d -> now += d.toNanos(), () -> now).isActive("slurmd"));
        assertEquals(0, now, "a failed unit is not waited for");
    }
}
