package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PlanDigest;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanBookTest {

    static final MungeKey KEY = MungeKey.of(new byte[64]);

    @TempDir
    Path state;

    static Planner.Plans plans(String partition) {
        Map<String, NodeFacts> inv = new TreeMap<>();
        for (String n : List.of("c0", "n1")) {
            inv.put(
                    n,
                    TestFacts.eightCores(n)
                            .os("debian 12")
                            .slurmVersion("22.05.8")
                            .build());
        }
        SlurmSettings s = new SlurmSettings(
                true, "lab", "c0", List.of("n1"), false, List.of("n1"), partition, null, null, false, null, Map.of());
        return Planner.plan(s, inv, KEY);
    }

    /** What an agent holding {@code answer}'s plan polls with: the digest of the plan as it read it from the leader's answer. */
    static String held(PlanBook.Answer answer) throws Exception {
        return PlanDigest.of(SettingsJson.STRICT
                .readValue(answer.json().bytes(), PublishedPlan.class)
                .plan());
    }

    static PlanBook.Answer answer(PlanBook book, String node) {
        List<PlanBook.Answer> got = new ArrayList<>();
        book.whenNewer(node, 0, got::add);
        return got.get(0);
    }

    @Test
    void thePollsOnePublishWakesShareOneWaveAnAnswerAtOnceHasNone() {
        PlanBook book = new PlanBook();
        book.publish(plans("gpu"));
        PlanBook.Answer now = answer(book, "n1");
        assertEquals(null, now.wave(), "an answer made at the poll is no publish's");
        List<PlanBook.Answer> woken = new ArrayList<>();
        book.whenNewer("n1", now.published().revision(), woken::add);
        book.whenNewer("c0", book.get("c0").orElseThrow().revision(), woken::add);
        book.publish(plans("batch"));
        assertEquals(2, woken.size());
        assertTrue(
                woken.get(0).wave() != null
                        && woken.get(0).wave() == woken.get(1).wave(),
                "one wave for the publish's answers");
    }

    @Test
    void aPollWhoseAnswerFailsNeverKeepsTheOthersFromTheirs() {
        PlanBook book = new PlanBook();
        book.publish(plans("gpu"));
        List<PlanBook.Answer> woken = new ArrayList<>();
        book.whenNewer("c0", book.get("c0").orElseThrow().revision(), a -> {
            throw new IllegalStateException("Response is closed");
        });
        book.whenNewer("n1", book.get("n1").orElseThrow().revision(), woken::add);
        assertEquals(2, book.publish(plans("batch")));
        assertEquals(1, woken.size(), "n1's poll answered after c0's failed");
        assertEquals(0, book.waiting());
    }

    @Test
    void aRestartedLeaderGivesAnUnchangedPlanTheRevisionTheAgentHoldsAndAChangedOneANewRevision() throws Exception {
        PlanBook first = PlanBook.open(state);
        first.publish(plans("gpu"));
        long gpu = first.get("n1").orElseThrow().revision();
        first.publish(plans("batch"));
        long batch = first.get("n1").orElseThrow().revision();
        assertTrue(batch > gpu, "a changed plan gets a higher revision");
        assertTrue(first.get("c0").orElseThrow().revision() > gpu);
        PlanBook.Answer held = answer(first, "n1");
        String digest = held(held);

        PlanBook same = PlanBook.open(state);
        same.publish(plans("batch"));
        List<PlanBook.Answer> woken = new ArrayList<>();
        same.whenNewer("n1", batch, digest, woken::add);
        assertEquals(List.of(), woken, "an agent holding this very plan waits: it is not sent it again");
        assertEquals(batch, same.get("n1").orElseThrow().revision(), "the plan keeps the revision the agent holds");
        same.whenNewer("c0", first.get("c0").orElseThrow().revision(), woken::add);
        assertEquals(1, woken.size(), "an agent that does not say what it holds is sent the plan");
        assertTrue(woken.get(0).published().revision() > batch, "under a revision no leader gave before");

        PlanBook changed = PlanBook.open(state);
        changed.publish(plans("debug"));
        long debug = changed.get("n1").orElseThrow().revision();
        assertTrue(
                debug > woken.get(0).published().revision(),
                "a changed plan never reuses a revision an agent may hold");
        List<PlanBook.Answer> told = new ArrayList<>();
        changed.whenNewer("n1", batch, digest, told::add);
        assertEquals(1, told.size(), "an agent holding another plan is answered at once");
        assertEquals(debug, told.get(0).published().revision());

        String kept = Files.readString(state.resolve(PlanBook.FILE_NAME));
        assertEquals(
                debug, SettingsJson.STRICT.readTree(kept).get("revisions_up_to").asLong());
        assertTrue(kept.length() < 64, "one number however many machines: " + kept);
    }

    @Test
    void aPollThatReachesAStartedLeaderBeforeItsFirstPublishIsNotSentThePlanItHolds() throws Exception {
        PlanBook first = PlanBook.open(state);
        first.publish(plans("batch"));
        PlanBook.Answer held = answer(first, "n1");

        PlanBook restarted = PlanBook.open(state);
        List<PlanBook.Answer> woken = new ArrayList<>();
        restarted.whenNewer("n1", held.published().revision(), held(held), woken::add);
        restarted.whenNewer("c0", answer(first, "c0").published().revision(), woken::add);
        assertEquals(
                1,
                restarted.publish(plans("batch")),
                "c0's agent did not say what it holds: it alone is sent its plan");
        assertEquals(
                List.of("c0"),
                woken.stream().map(a -> a.published().plan().node()).toList());
        assertEquals(
                held.published().revision(), restarted.get("n1").orElseThrow().revision());
        assertEquals(1, restarted.waiting(), "n1's poll still waits");
        restarted.publish(plans("debug"));
        assertEquals(2, woken.size(), "and is answered by the next change");
        assertTrue(
                woken.get(1).published().revision() > woken.get(0).published().revision());
    }

    @Test
    void aRevisionWithAnotherDigestOrOneNoLeaderGaveIsNotTakenAsHeld() throws Exception {
        PlanBook book = PlanBook.open(state);
        book.publish(plans("gpu"));
        PlanBook.Answer now = answer(book, "n1");
        long revision = now.published().revision();
        List<PlanBook.Answer> woken = new ArrayList<>();
        // Its leader's state restored from an older backup: the agent holds this number for another plan.
        book.whenNewer("n1", revision, "0".repeat(64), woken::add);
        assertEquals(1, woken.size(), "the same revision with another digest is answered at once");
        // A number above every one given (made up, or from a leader this one never heard of) is never taken.
        book.whenNewer("n1", revision + 1000, held(now), woken::add);
        assertEquals(2, woken.size());
        assertEquals(revision, book.get("n1").orElseThrow().revision());
        book.whenNewer("n1", revision, held(now), woken::add);
        assertEquals(2, woken.size(), "the plan held, with its digest, waits");
    }

    @Test
    void thePlansDocumentOfAnEarlierSlurmletKeepsEachUnchangedPlansRevisionAndIsWrittenInTheNewForm() throws Exception {
        PlanBook scratch = new PlanBook();
        scratch.publish(plans("batch"));
        String n1 = held(answer(scratch, "n1"));
        Files.writeString(state.resolve(PlanBook.FILE_NAME), """
                {"n1": {"revision": 7, "digest": "%s"}, "c0": {"revision": 3, "digest": "%s"}}
                """.formatted(n1, "0".repeat(64)));
        PlanBook book = PlanBook.open(state);
        book.publish(plans("batch"));
        assertEquals(7, book.get("n1").orElseThrow().revision(), "an unchanged plan keeps its revision");
        assertEquals(8, book.get("c0").orElseThrow().revision(), "a changed one gets one above every earlier revision");
        assertEquals(
                8,
                SettingsJson.STRICT
                        .readTree(Files.readString(state.resolve(PlanBook.FILE_NAME)))
                        .get("revisions_up_to")
                        .asLong());
        assertEquals(
                7, PlanBook.open(state).get("n1").map(PublishedPlan::revision).orElse(7L));
    }

    @Test
    void anUnreadablePlansDocumentNamesItsFileAndTheFix() throws Exception {
        Files.writeString(state.resolve(PlanBook.FILE_NAME), "{\"revisions_up_to\": \"many\"}");
        var e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> PlanBook.open(state));
        assertTrue(
                e.getMessage().contains(state.resolve(PlanBook.FILE_NAME).toString())
                        && e.getMessage().contains("revisions_up_to")
                        && e.getMessage().contains("restore it from a backup"),
                e.getMessage());
    }

    @Test
    void aPlansJsonIsTheSameHoweverItsRolesWereGiven() {
        NodePlan plan = NodePlan.of("n1", java.util.EnumSet.of(Role.COMPUTE, Role.CONTROLLER));
        NodePlan reversed = NodePlan.of("n1", new java.util.LinkedHashSet<>(List.of(Role.CONTROLLER, Role.COMPUTE)));
        assertEquals(new String(PlanDigest.json(plan)), new String(PlanDigest.json(reversed)), "roles in Role's order");
    }

    @Test
    void aWaitingPollIsAnsweredByTheNextPlanAndACancelledOneIsForgotten() throws Exception {
        PlanBook book = new PlanBook();
        book.publish(plans("gpu"));
        long n1 = book.get("n1").orElseThrow().revision();
        List<PlanBook.Answer> woken = new ArrayList<>();
        book.whenNewer("n1", n1, woken::add);
        Runnable cancel = book.whenNewer("c0", book.get("c0").orElseThrow().revision(), woken::add);
        assertEquals(2, book.waiting());
        cancel.run();
        assertEquals(1, book.waiting());
        book.publish(plans("batch"));
        assertEquals(1, woken.size());
        assertEquals("n1", woken.get(0).published().plan().node());
        assertEquals(0, book.waiting());
        book.whenNewer("n1", n1, woken::add);
        assertEquals(2, woken.size(), "a poll holding an old revision is answered at once");
        // Made once at publish for the waiting poll, made again for the later one: each reads back as the plan
        // published.
        for (PlanBook.Answer a : woken) {
            assertEquals(
                    a.published(),
                    io.slurmlet.model.api.SettingsJson.STRICT.readValue(a.json().bytes(), PublishedPlan.class));
            assertEquals(book.get("n1").orElseThrow(), a.published());
        }
    }
}
