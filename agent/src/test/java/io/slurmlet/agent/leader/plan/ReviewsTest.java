package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ReviewsTest {

    private final Reviews reviews = new Reviews();
    private final Map<String, NodeFacts> machines = machines();
    private final Planner.Lent lent = Planner.Lent.asWished(settings("100"));

    static Map<String, NodeFacts> machines() {
        Map<String, NodeFacts> inv = new TreeMap<>();
        for (String n : List.of("c0", "n1", "n2")) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("22.05.8")
                            .build());
        }
        return Map.copyOf(inv);
    }

    static SlurmSettings settings(String maxJobs) {
        return new SlurmSettings(
                true,
                "lab",
                "c0",
                List.of("n1", "n2"),
                false,
                List.of("n1"),
                "gpu",
                null,
                null,
                false,
                null,
                Map.of("MaxJobCount", maxJobs));
    }

    @Test
    void theStoredSettingsReviewIsTheNextWritesReviewOfTheCurrentOnesAndEqualsAFreshOne() {
        Planner.Plans current = reviews.of(settings("100"), machines, lent);
        Planner.Plans stored = reviews.of(settings("200"), machines, lent);
        // The next write: its current settings are the ones the last write stored, read as an equal record.
        assertSame(stored, reviews.of(settings("200"), machines, lent));
        assertEquals(Planner.review(settings("200"), machines, lent), stored);
        assertNotSame(current, stored);
    }

    @Test
    void anotherInventoryOrLendingIsReviewedAgain() {
        Planner.Plans first = reviews.of(settings("100"), machines, lent);
        // A machine's facts changed: Inventory hands out a new snapshot, even with equal facts.
        Planner.Plans newFacts = reviews.of(settings("100"), machines(), lent);
        assertNotSame(first, newFacts);
        assertEquals(first, newFacts);
        Planner.Plans lending =
                reviews.of(settings("100"), machines, new Planner.Lent(Set.of("n1"), Set.of(), Set.of("n1", "n2")));
        assertNotSame(newFacts, lending);
        assertEquals(
                Planner.review(settings("100"), machines, new Planner.Lent(Set.of("n1"), Set.of(), Set.of("n1", "n2"))),
                lending);
    }
}
