package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How often a machine's facts may change, and how often the leader's log says one was refused. */
class FactsLimitTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aMachinesRefusalsAreLoggedAtMostOnceAMinuteWithHowManyCameBetween() {
        AtomicLong now = new AtomicLong(123 * SECOND);
        List<String> lines = new ArrayList<>();
        FactsLimit limit = new FactsLimit(Duration.ofSeconds(10), now::get, lines::add);
        for (int i = 0; i < FactsLimit.BURST; i++) {
            assertEquals(Duration.ZERO, limit.wait("n1"));
            limit.changed("n1");
        }
        assertEquals(Duration.ofSeconds(10), limit.wait("n1"));
        for (int i = 0; i < 30; i++) { // one a second for 30 s: a change taken each 10 s
            assertTrue(limit.refused("n1").compareTo(Duration.ofSeconds(10)) <= 0);
            if (limit.wait("n1").isZero()) {
                limit.changed("n1");
            }
            now.addAndGet(SECOND);
        }
        limit.refused("n2"); // another machine's first: logged
        assertEquals(2, lines.size(), String.join("\n", lines));
        assertTrue(
                lines.get(0)
                        .startsWith(
                                "n1's facts change more often than the leader takes them (3 changes at once, then one every "
                                        + "10 s: slurmlet.leader.facts-change-interval): a report that changes them is refused for 10 s more (1 refused"),
                lines.get(0));
        now.addAndGet(30 * SECOND); // a minute after n1's line
        limit.refused("n1");
        assertEquals(3, lines.size());
        assertTrue(lines.get(2).contains("(30 refused since this machine's last line like this one"), lines.get(2));
    }

    @Test
    void noIntervalTakesEveryChange() {
        FactsLimit limit = new FactsLimit(Duration.ZERO, () -> 0L, line -> {});
        for (int i = 0; i < 100; i++) {
            assertEquals(Duration.ZERO, limit.wait("n1"));
            limit.changed("n1");
        }
        assertEquals("0 s", limit.every());
        assertEquals("1.5 s", new FactsLimit(Duration.ofMillis(1500)).every());
        assertEquals(1, FactsLimit.seconds(Duration.ofMillis(1)));
        assertEquals(10, FactsLimit.seconds(Duration.ofMillis(9001)));
    }
}
