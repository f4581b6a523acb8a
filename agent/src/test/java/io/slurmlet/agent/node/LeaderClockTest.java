package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.observed.ClockSeen;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LeaderClockTest {

    static final Instant T = Instant.parse("2026-12-07T12:00:00Z");
    static final URI N0 = URI.create("https://n0:6820/");
    final LeaderClock clock = new LeaderClock(Clock.fixed(T, ZoneOffset.UTC));

    @Test
    void beforeAnyAnswerItIsThisMachinesOwnClock() {
        assertEquals(T, clock.instant());
        assertEquals(Optional.empty(), clock.seen());
    }

    @Test
    void theLeadersTimeIsTakenAtTheMiddleOfTheRoundTrip() {
        // Sent at T, answered 200 ms later: the leader said T - 5 s + 100 ms, at the trip's middle.
        clock.sample(N0, T, T.minusMillis(4_900), T.plusMillis(200));
        assertEquals(Optional.of(new ClockSeen(5_000, 100)), clock.seen());
        assertEquals(T.minusMillis(5_000), clock.instant(), "now by the leader's clock");
    }

    @Test
    void theShortestOfTheLastRoundTripsWinsAndAnOlderOneIsForgotten() {
        clock.sample(N0, T, T.plusMillis(1), T.plusMillis(2)); // 1 ms each way: the machine is in step
        clock.sample(N0, T, T.minusMillis(3_000), T.plusMillis(800)); // a slow trip, slowed one way
        assertEquals(Optional.of(new ClockSeen(0, 1)), clock.seen());
        for (int i = 0; i < LeaderClock.KEPT; i++) {
            clock.sample(N0, T, T.plusMillis(50), T.plusMillis(40)); // the leader 30 ms ahead, over 40 ms trips
        }
        assertEquals(Optional.of(new ClockSeen(-30, 20)), clock.seen(), "the 1 ms trip is no longer among the kept");
    }

    @Test
    void aTripThisMachinesClockWentBackDuringIsNotTaken() {
        clock.sample(N0, T, T, T.minusMillis(5));
        assertEquals(Optional.empty(), clock.seen());
    }

    @Test
    void whatStatusSays() {
        assertEquals("3 ms ahead of the leader's (±1 ms)", new ClockSeen(3, 1).said());
        assertEquals("1200 ms behind the leader's (±4 ms)", new ClockSeen(-1_200, 4).said());
        assertEquals("the leader's (±0 ms)", new ClockSeen(0, 0).said());
    }

    @Test
    void anotherLeaderStartsTheSamplesAnew() {
        clock.sample(N0, T, T.plusMillis(1), T.plusMillis(2));
        clock.sample(URI.create("https://n1:6820/"), T, T.minusMillis(2_960), T.plusMillis(80));
        assertEquals(
                Optional.of(new ClockSeen(3_000, 40)), clock.seen(), "the new leader's, though its trip is longer");
    }
}
