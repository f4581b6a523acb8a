package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** slurmd's reread: one re-execution at a time, never a SIGHUP into one under way. */
class SystemdServicesTest {

    static final List<String> MAIN_PID = List.of("systemctl", "show", "-p", "MainPID", "--value", "slurmd");
    static final List<String> HUP = List.of("systemctl", "kill", "--kill-whom=main", "--signal=HUP", "slurmd");

    long now;
    final FakeCommands commands = new FakeCommands().answer(List.of("systemctl", "is-active", "--quiet", "slurmd"), Commands.Result.ok(""))
            .answer(HUP, Commands.Result.ok(""));

    SystemdServices services() {
        return new SystemdServices(commands, d -> now += d.toNanos(), () -> now);
    }

    /** The main PIDs systemd gives, one a look; the last one stays. */
    void pids(String... pids) {
        Deque<String> left = new ArrayDeque<>(List.of(pids));
        commands.answerPrefix(MAIN_PID, call -> Commands.Result.ok((left.size() > 1 ? left.poll() : left.peek()) + "\n"));
    }

    @Test
    void aDaemonThatKeepsItsPidIsSignalledOnceTheGraceForAReconfigureOnItsWayIsOver() throws Exception {
        pids("611");
        services().reread("slurmd");
        assertEquals(1, commands.log().stream().filter(HUP::equals).count());
        assertTrue(now >= SystemdServices.REREAD_GRACE.toNanos() && now < SystemdServices.REREAD_GRACE.toNanos() + Duration.ofMillis(400).toNanos(),
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
        assertTrue(now >= lastChange + SystemdServices.SETTLED.toNanos(), "signalled only once 655 had stayed a second: " + now);
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

        FakeCommands inactive = new FakeCommands().answer(MAIN_PID, "0\n")
                .answer(List.of("systemctl", "is-active", "--quiet", "slurmd"), new Commands.Result(3, "", ""));
        new SystemdServices(inactive, d -> now += d.toNanos(), () -> now).reread("slurmd");
        assertTrue(inactive.log().stream().noneMatch(HUP::equals), inactive.log().toString());
    }
}
