package io.slurmlet.agent.leader.plan;

import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.settings.SlurmSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanBookTest {

    static final MungeKey KEY = MungeKey.of(new byte[64]);

    @TempDir
    Path state;

    static Planner.Plans plans(String partition) {
        Map<String, NodeFacts> inv = new TreeMap<>();
        for (String n : List.of("c0", "n1")) {
            inv.put(n, new NodeFacts(n, "", 8, 1, 1, 8, 1, 32_000, List.of(), "debian 12", "22.05.8"));
        }
        SlurmSettings s = new SlurmSettings(true, "lab", "c0", List.of("n1"), false, List.of("n1"), partition, null, null,
                false, null, Map.of());
        return Planner.plan(s, inv, KEY);
    }

    @Test
    void aRestartedLeaderKeepsTheRevisionOfAnUnchangedPlanAndRaisesThatOfAChangedOne() throws Exception {
        PlanBook first = PlanBook.open(state);
        first.publish(plans("gpu"));
        first.publish(plans("batch"));
        assertEquals(2, first.get("n1").orElseThrow().revision());

        PlanBook same = PlanBook.open(state);
        assertEquals(0, same.publish(plans("batch")), "the same plans after a restart are nothing new");
        assertEquals(2, same.get("n1").orElseThrow().revision());
        List<PlanBook.Answer> woken = new ArrayList<>();
        same.whenNewer("n1", 2, woken::add);
        assertTrue(woken.isEmpty(), "an agent holding revision 2 waits");

        PlanBook changed = PlanBook.open(state);
        changed.publish(plans("debug"));
        assertEquals(3, changed.get("n1").orElseThrow().revision(), "a changed plan never reuses a revision an agent may hold");
        assertFalse(Files.readString(state.resolve(PlanBook.FILE_NAME)).contains(java.util.Base64.getEncoder().encodeToString(KEY.bytes())));
    }

    @Test
    void aWaitingPollIsAnsweredByTheNextPlanAndACancelledOneIsForgotten() throws Exception {
        PlanBook book = new PlanBook();
        book.publish(plans("gpu"));
        List<PlanBook.Answer> woken = new ArrayList<>();
        book.whenNewer("n1", 1, woken::add);
        Runnable cancel = book.whenNewer("c0", 1, woken::add);
        assertEquals(2, book.waiting());
        cancel.run();
        assertEquals(1, book.waiting());
        book.publish(plans("batch"));
        assertEquals(1, woken.size());
        assertEquals("n1", woken.get(0).published().plan().node());
        assertEquals(0, book.waiting());
        book.whenNewer("n1", 1, woken::add);
        assertEquals(2, woken.size(), "a poll holding an old revision is answered at once");
        // Made once at publish for the waiting poll, made again for the later one: each reads back as the plan published.
        for (PlanBook.Answer a : woken) {
            assertEquals(a.published(), io.slurmlet.model.api.SettingsJson.STRICT.readValue(a.json(), PublishedPlan.class));
            assertEquals(book.get("n1").orElseThrow(), a.published());
        }
    }
}
