package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.fake.FakeServices;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DaemonWatchTest {

    /** A clock the test moves. */
    static final class Hands extends Clock {
        Instant now = Instant.parse("2026-12-01T10:00:00Z");

        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        public Instant instant() {
            return now;
        }

        void pass(Duration d) {
            now = now.plus(d);
        }
    }

    final FakeServices services = new FakeServices().running("munge").running("slurmd");
    final Hands clock = new Hands();
    final List<Outcome> recorded = new ArrayList<>();
    boolean busy;
    final DaemonWatch watch = new DaemonWatch(
            services, () -> List.of("munge", "slurmd"), () -> busy, recorded::add, clock, Duration.ofSeconds(1));

    @Test
    void aDaemonThatDiesIsSaidAtOnceWithSystemdsReasonAndStartedAgainASecondLater() {
        assertEquals(Outcome.unchanged("daemons", "munge, slurmd run"), watch.look());
        services.died("slurmd");
        services.log.clear();
        Outcome down = watch.look();
        assertTrue(down.failed());
        assertEquals(
                "slurmd is down since 2026-12-01T10:00:00Z (systemd: failed (signal)); started again 0 times",
                down.detail());
        assertEquals(List.of(), services.log, "not at once: systemd's own Restart= may be at it");
        clock.pass(Duration.ofSeconds(1));
        watch.look();
        assertEquals(List.of("start slurmd"), services.log);
        assertEquals(Outcome.unchanged("daemons", "munge, slurmd run"), watch.look());
        assertEquals(4, recorded.size(), "each new verdict once: up, down, started again, up: " + recorded);
    }

    @Test
    void aDaemonWaitingForItsOwnRestartIsSaidDownAndLeftToSystemd() {
        watch.look();
        services.diedWithRestart("slurmd");
        services.log.clear();
        Outcome down = watch.look();
        assertEquals(
                "slurmd is down since 2026-12-01T10:00:00Z (systemd: activating (signal)); started again 0 times",
                down.detail());
        clock.pass(Duration.ofSeconds(3));
        watch.look();
        assertEquals(List.of(), services.log, "slurmlet's drop-in has systemd start it (1 s): no second start");
    }

    @Test
    void aDaemonSystemdStartedAgainBetweenTwoLooksIsSaidFromItsRestartCountUntilSomeoneStartsIt() {
        watch.look();
        services.restartedBySystemd(
                "slurmd"); // SIGKILLed and started again by its Restart= within a second: never seen down
        clock.pass(Duration.ofSeconds(1));
        Outcome after = watch.look();
        assertFalse(after.failed(), "it runs: readiness stays true");
        assertEquals(
                "munge, slurmd run; systemd started slurmd again after it ended 1 time (the last seen at 2026-12-01T10:00:01Z;"
                        + " journalctl -u slurmd says why)",
                after.detail());
        clock.pass(Duration.ofSeconds(5));
        assertEquals(after, watch.look(), "the same crash is said once, with the time it was first seen");
        services.restartedBySystemd("slurmd");
        assertTrue(watch.look()
                .detail()
                .contains("slurmd again after it ended 2 times (the last seen at 2026-12-01T10:00:06Z;"));
        services.restartedByHand("slurmd"); // an admin's or a pass's start: systemd counts from 0 again
        assertEquals(Outcome.unchanged("daemons", "munge, slurmd run"), watch.look());
        assertEquals(List.of(), services.log, "nothing started by the watch: systemd had");
    }

    @Test
    void aDaemonThatWillNotStartIsTriedAgainWithABackoffUpTo30SecondsAndSaysWhy() {
        watch.look();
        services.died("slurmd").failing("slurmd");
        List<Instant> tries = new ArrayList<>();
        for (int s = 0; s < 120; s++) {
            int before = services.log.size();
            watch.look();
            if (services.log.size() > before) {
                tries.add(clock.now);
            }
            clock.pass(Duration.ofSeconds(1));
        }
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < tries.size(); i++) {
            gaps.add(Duration.between(tries.get(i - 1), tries.get(i)).toSeconds());
        }
        assertEquals(List.of(2L, 4L, 8L, 16L, 30L, 30L), gaps.subList(0, 6));
        Outcome o = watch.look();
        assertTrue(
                o.failed() && o.detail().contains("the last failed: systemctl start slurmd failed (exit 1)"),
                o.detail());
        services.recovered("slurmd");
        clock.pass(Duration.ofSeconds(30));
        watch.look();
        assertFalse(watch.look().failed());
    }

    @Test
    void aDaemonThatExitsAfterEveryStartIsLeftDownAfterFiveAndSaysSoUntilItIsUpAgain() {
        watch.look();
        services.died("slurmd");
        int starts = 0;
        for (int s = 0; s < 300; s++) {
            int before = services.log.size();
            watch.look();
            if (services.log.size() > before) {
                starts++;
                services.died("slurmd"); // started, and exited at once (a slurmctld on state it cannot read)
            }
            clock.pass(Duration.ofSeconds(1));
        }
        assertEquals(DaemonWatch.MOST_TRIES, starts, services.log.toString());
        Outcome o = watch.look();
        assertTrue(
                o.failed()
                        && o.detail()
                                .endsWith("started again 5 times; left down, as it exited after each start "
                                        + "(journalctl -u slurmd says why)"),
                o.detail());
        services.restartedByHand("slurmd"); // a pass, or an admin, started it
        assertFalse(watch.look().failed());
        services.died("slurmd");
        watch.look();
        clock.pass(Duration.ofSeconds(1));
        int before = services.log.size();
        watch.look();
        assertEquals(before + 1, services.log.size(), "a new crash is undone again");
    }

    @Test
    void aDaemonThePlanNoLongerRunsIsNotWatched() {
        List<String> wanted = new ArrayList<>(List.of("munge", "slurmd"));
        DaemonWatch w = new DaemonWatch(
                services, () -> List.copyOf(wanted), () -> false, recorded::add, clock, Duration.ofSeconds(1));
        services.died("slurmd");
        assertTrue(w.look().failed());
        wanted.remove("slurmd");
        assertEquals(Outcome.unchanged("daemons", "munge runs"), w.look());
    }

    @Test
    void aDaemonSomeoneStoppedIsSaidButNotStartedAndNoneIsStartedWhileAPassRuns() {
        watch.look();
        services.stop("slurmd");
        services.log.clear();
        clock.pass(Duration.ofSeconds(5));
        assertTrue(watch.look().failed(), "health says it is down");
        clock.pass(Duration.ofSeconds(5));
        watch.look();
        assertEquals(List.of(), services.log, "an admin's stop is left to the next pass");
        services.died("slurmd");
        busy = true;
        clock.pass(Duration.ofSeconds(5));
        watch.look();
        assertEquals(List.of(), services.log, "the pass may be restarting it itself");
        busy = false;
        clock.pass(Duration.ofSeconds(5));
        watch.look();
        assertEquals(List.of("start slurmd"), services.log);
    }

    @Test
    void aDaemonTheNewestPlanRetiresIsNoLongerWatchedSoItsStopIsNoDaemonDown() {
        StepRunner runner = new StepRunner(List.of(), new StepBook(List.of()), Duration.ofMinutes(5), () -> {});
        assertEquals(List.of(), NodeAgent.watched(runner), "nothing before a plan is applied");
        runner.pass(new io.slurmlet.model.plan.PublishedPlan(
                1,
                io.slurmlet.model.plan.NodePlan.of("n0", java.util.Set.of())
                        .withSlurm(new io.slurmlet.model.plan.SlurmPlan(List.of(), List.of("munge", "slurmctld")))));
        assertEquals(List.of("munge", "slurmctld"), NodeAgent.watched(runner));
        // The controller moved away: the plan offered retires slurmctld, and the pass that stops it has not ended.
        runner.offer(new io.slurmlet.model.plan.PublishedPlan(
                2,
                io.slurmlet.model.plan.NodePlan.of("n0", java.util.Set.of())
                        .withSlurm(io.slurmlet.model.plan.SlurmPlan.retiring(List.of("slurmctld", "slurmd")))));
        assertEquals(List.of("munge"), NodeAgent.watched(runner));
    }

    @Test
    void aDaemonSeenDownWhileTheSlurmStepRestartsItIsNotSaidDownButOneDownBeforeTheStepStaysSaid() throws Exception {
        assertEquals(Outcome.unchanged("daemons", "munge, slurmd run"), watch.look());
        // The slurm step's systemctl restart, between its stop and its start.
        busy = true;
        services.stop("slurmd");
        services.log.clear();
        assertEquals(
                Outcome.unchanged("daemons", "munge runs; slurmd is being restarted by this machine's pass"),
                watch.look(),
                "the step's own restart is no daemon down");
        clock.pass(Duration.ofSeconds(3));
        watch.look();
        assertEquals(List.of(), services.log, "nothing started under the step");
        services.start("slurmd");
        busy = false;
        watch.look();
        assertEquals(3, recorded.size(), "up, being restarted, up: " + recorded);
        assertTrue(recorded.stream().noneMatch(Outcome::failed), "never down: " + recorded);
        // A step that ended with the daemon down: said at the first look after it.
        services.died("slurmd");
        assertTrue(watch.look().failed());
        busy = true;
        assertTrue(watch.look().failed(), "down before the step began stays said while it runs");
        // Seen down as a step began during the look: the step's, not said.
        busy = false;
        services.start("slurmd");
        watch.look();
        services.stop("slurmd");
        assertFalse(watchOfStepThatFlips(false).look().failed(), "the step had begun by the end of the look");
        DaemonWatch v = watchOfStepThatFlips(true);
        assertFalse(v.look().failed(), "the step ran as the look began, and ended before it was over");
        assertTrue(v.look().failed(), "no step at either side: down");
    }

    /** A watch of slurmd whose step runs ({@code first}) when first asked, and the other way at every later ask. */
    DaemonWatch watchOfStepThatFlips(boolean first) {
        boolean[] asked = {false};
        return new DaemonWatch(
                services,
                () -> List.of("slurmd"),
                () -> {
                    boolean again = asked[0];
                    asked[0] = true;
                    return again != first;
                },
                o -> {},
                clock,
                Duration.ofSeconds(1));
    }
}
