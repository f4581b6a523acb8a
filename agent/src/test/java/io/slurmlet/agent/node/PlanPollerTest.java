package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** When a machine calls a leader it lost again: spread over the leader's window, then backing off. */
class PlanPollerTest {

    private static final SplittableRandom RANDOM = new SplittableRandom(17);

    /**
     * 10,000 machines that lost a leader which gave them a 50-s window come back over all of it,
     * about as many in each 5 s: not 10,000 in the first two seconds, as with the backoff alone.
     */
    @Test
    void theFirstCallAfterTheLeaderWasLostComesAtARandomMomentOfItsWindow() {
        Duration window = Duration.ofSeconds(50);
        int[] buckets = new int[10];
        for (int i = 0; i < 10_000; i++) {
            Duration wait = PlanPoller.wait(true, Duration.ofSeconds(1), window, RANDOM);
            assertTrue(!wait.isNegative() && wait.compareTo(window) <= 0, wait.toString());
            buckets[(int) Math.min(9, wait.toMillis() / 5000)]++;
        }
        for (int b : buckets) {
            assertTrue(
                    b > 850 && b < 1150,
                    "each 5 s of the window holds about a tenth: " + java.util.Arrays.toString(buckets));
        }
    }

    @Test
    void withNoWindowTheFirstCallComesWithinTheFirstBackoff() {
        for (int i = 0; i < 1000; i++) {
            long ms = PlanPoller.wait(true, Duration.ofSeconds(1), Duration.ZERO, RANDOM)
                    .toMillis();
            assertTrue(ms >= 0 && ms <= 1000, ms + " ms");
        }
    }

    /**
     * While the leader stays away, each later call comes between the backoff and the window: a
     * leader away longer than its window (a machine rebooting) is still called at its rate, 10,000
     * machines over 50 s, not each of them every 10 to 20 s. A small cluster's: the backoff and up
     * to a second more.
     */
    @Test
    void laterCallsComeBetweenTheBackoffAndTheWindow() {
        double sum = 0;
        for (int i = 0; i < 10_000; i++) {
            long small = PlanPoller.wait(false, Duration.ofSeconds(4), Duration.ZERO, RANDOM)
                    .toMillis();
            assertTrue(small >= 4000 && small <= 5000, "a small cluster's: a second of jitter at most, " + small);
            long tiny = PlanPoller.wait(false, Duration.ofMillis(20), Duration.ofSeconds(1), RANDOM)
                    .toMillis();
            assertTrue(tiny >= 20 && tiny <= 1000, "a first backoff shorter than a second, within the window: " + tiny);
            long large = PlanPoller.wait(false, Duration.ofSeconds(10), Duration.ofSeconds(50), RANDOM)
                    .toMillis();
            assertTrue(
                    large >= 10_000 && large <= 50_000, "a large one's: between the backoff and the window, " + large);
            sum += large;
        }
        assertEquals(
                30_000,
                sum / 10_000,
                1000,
                "spread evenly between them: 10,000 machines call about 333 times a second");
    }

    @Test
    void aWindowIsWholeSecondsUpToTenMinutesAndAnythingElseIsNone() {
        assertEquals(Duration.ofSeconds(50), LeaderCalls.window("50"));
        assertEquals(Duration.ofMinutes(10), LeaderCalls.window("99999"));
        assertEquals(Duration.ZERO, LeaderCalls.window("-3"));
        assertEquals(Duration.ZERO, LeaderCalls.window("50s"));
        assertEquals(Duration.ZERO, LeaderCalls.window(""));
    }

    @Test
    void aRetryAfterIsWholeSecondsUpToTenMinutesAndAnythingElseIsNone() {
        assertEquals(java.util.Optional.of(Duration.ofSeconds(7)), LeaderCalls.retryAfter("7"));
        assertEquals(java.util.Optional.of(Duration.ofMinutes(10)), LeaderCalls.retryAfter("86400"));
        assertEquals(java.util.Optional.empty(), LeaderCalls.retryAfter("0"));
        assertEquals(java.util.Optional.empty(), LeaderCalls.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT"));
    }
}
