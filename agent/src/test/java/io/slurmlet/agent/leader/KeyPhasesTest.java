package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.slurmlet.agent.leader.KeyPhases.Phase;
import io.slurmlet.agent.leader.KeyPhases.State;
import io.slurmlet.model.observed.SlurmSeen.JwksSeen;
import io.slurmlet.model.plan.SlurmAuthKeys;
import io.slurmlet.model.plan.SlurmJwks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The rotation of Slurm's keys in three phases: pure, no clock, no files. */
class KeyPhasesTest {

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Map<String, Set<String>> CLUSTER =
            Map.of("n0", Set.of("slurmctld"), "n1", Set.of("slurmd"), "n2", Set.of("slurmd"));

    private static State first() {
        return State.first(new SlurmAuthKeys(1, SlurmJwks.first("slurmlet-1")), T0, 2);
    }

    /** Every planned daemon of {@link #CLUSTER} loaded {@code generation}. */
    private static Map<String, JwksSeen> all(long generation) {
        return Map.of(
                "n0", seen("slurmctld", generation),
                "n1", seen("slurmd", generation),
                "n2", seen("slurmd", generation));
    }

    private static JwksSeen seen(String unit, long generation) {
        return new JwksSeen(generation, Map.of(unit, generation));
    }

    private static Map<String, JwksSeen> with(Map<String, JwksSeen> seen, String node, JwksSeen one) {
        Map<String, JwksSeen> more = new HashMap<>(seen);
        more.put(node, one);
        return more;
    }

    @Test
    void aRotationAddsANewKeyBesideTheOneThatStillSigns() {
        State added = KeyPhases.rotate(first(), T0.plusSeconds(5), "root over the leader's socket");

        assertEquals(Phase.ADDED, added.phase());
        assertEquals(2, added.generation());
        assertEquals(List.of("slurmlet-1", "slurmlet-2"), added.keys().jwks().kids());
        assertEquals("slurmlet-1", added.keys().jwks().signing(), "the old key still signs");
        assertEquals(3, added.nextKid());
        assertEquals(1, added.rotation());
        assertEquals(Optional.of(T0.plusSeconds(5)), added.requested());
        assertEquals(T0.plusSeconds(5), added.since());
        assertEquals("root over the leader's socket", added.by());
        assertEquals(
                first().keys().jwks().kids(),
                List.of(added.keys().jwks().kids().get(0)),
                "the old key is kept as it was");
    }

    @Test
    void aSecondRotationIsRefusedWhileOneIsUnderWay() {
        State added = KeyPhases.rotate(first(), T0, "root");
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> KeyPhases.rotate(added, T0.plusSeconds(1), "bob"));
        assertEquals(
                "rotation 1 of Slurm's keys is under way (phase ADDED since 2026-12-07T10:00:00Z): wait for it to end "
                        + "(ctl slurm auth-key status)",
                e.getMessage());
    }

    @Test
    void noPhaseMovesWhileAnyDaemonLags() {
        State added = KeyPhases.rotate(first(), T0, "root");

        assertEquals(Optional.empty(), KeyPhases.next(added, CLUSTER, all(1), T0.plusSeconds(600), WAIT));
        assertEquals(
                Optional.empty(),
                KeyPhases.next(added, CLUSTER, with(all(2), "n2", seen("slurmd", 1)), T0, WAIT),
                "n2's slurmd holds generation 1");
        Map<String, JwksSeen> unreported = new HashMap<>(all(2));
        unreported.remove("n1");
        assertEquals(Optional.empty(), KeyPhases.next(added, CLUSTER, unreported, T0, WAIT), "n1 has not reported");
        assertEquals(
                Optional.empty(),
                KeyPhases.next(added, CLUSTER, with(all(2), "n0", new JwksSeen(2L, Map.of())), T0, WAIT),
                "the file is written, slurmctld has not loaded it");
        assertEquals(
                List.of("n0 (slurmctld)", "n1 (slurmd)"),
                KeyPhases.lagging(added, CLUSTER, with(with(all(2), "n0", seen("slurmctld", 1)), "n1", JwksSeen.NONE)));
    }

    @Test
    void addedSwitchesThenDropsTheOldKeyATokensLifetimeAfterEveryDaemonLoadedTheSwitch() {
        State added = KeyPhases.rotate(first(), T0, "root");

        State switched =
                KeyPhases.next(added, CLUSTER, all(2), T0.plusSeconds(10), WAIT).orElseThrow();
        assertEquals(Phase.SWITCHED, switched.phase());
        assertEquals(3, switched.generation());
        assertEquals(List.of("slurmlet-1", "slurmlet-2"), switched.keys().jwks().kids());
        assertEquals("slurmlet-2", switched.keys().jwks().signing());
        assertEquals(T0.plusSeconds(10), switched.since());
        assertEquals(Optional.empty(), switched.loadedEverywhere());
        assertEquals(
                added.keys().jwks().signingWith("slurmlet-2"), switched.keys().jwks(), "the same keys");

        assertEquals(Optional.empty(), KeyPhases.next(switched, CLUSTER, all(2), T0.plusSeconds(600), WAIT));
        State loaded = KeyPhases.next(switched, CLUSTER, all(3), T0.plusSeconds(20), WAIT)
                .orElseThrow();
        assertEquals(Optional.of(T0.plusSeconds(20)), loaded.loadedEverywhere());
        assertEquals(3, loaded.generation(), "only noted: nothing new is published");
        assertEquals(switched.keys(), loaded.keys());

        assertEquals(
                Optional.empty(),
                KeyPhases.next(
                        loaded, CLUSTER, all(3), T0.plusSeconds(20).plus(WAIT).minusMillis(1), WAIT));
        State steady = KeyPhases.next(
                        loaded, CLUSTER, all(3), T0.plusSeconds(20).plus(WAIT), WAIT)
                .orElseThrow();
        assertEquals(Phase.STEADY, steady.phase());
        assertEquals(4, steady.generation());
        assertEquals(List.of("slurmlet-2"), steady.keys().jwks().kids());
        assertEquals("slurmlet-2", steady.keys().jwks().signing());
        assertEquals(1, steady.rotation());
        assertEquals(Optional.empty(), KeyPhases.next(steady, CLUSTER, all(4), T0.plusSeconds(9999), WAIT));

        State again = KeyPhases.rotate(steady, T0.plusSeconds(500), "bob");
        assertEquals(List.of("slurmlet-2", "slurmlet-3"), again.keys().jwks().kids());
        assertEquals(2, again.rotation());
        assertEquals(5, again.generation());
    }

    @Test
    void aMachineDownHoldsTheRotationAtItsPhaseWithTheOldKeyStillAccepted() {
        State added = KeyPhases.rotate(first(), T0, "root");
        Map<String, JwksSeen> n2Down = with(all(2), "n2", seen("slurmd", 1));
        for (int minutes = 1; minutes < 120; minutes += 7) {
            assertEquals(Optional.empty(), KeyPhases.next(added, CLUSTER, n2Down, T0.plusSeconds(60L * minutes), WAIT));
        }
        assertTrue(added.keys().jwks().kids().contains("slurmlet-1"));
        assertTrue(
                KeyPhases.nextStep(added, CLUSTER, n2Down, WAIT)
                        .startsWith("slurmlet-2 signs once n2 (slurmd) loads generation 2 (a machine that is down"),
                KeyPhases.nextStep(added, CLUSTER, n2Down, WAIT));
        assertTrue(KeyPhases.next(added, CLUSTER, all(2), T0, WAIT).isPresent(), "back: it goes on");
    }

    @Test
    void aNodeJoiningMidRotationIsWaitedForUntilItLoadedTheGeneration() {
        State added = KeyPhases.rotate(first(), T0, "root");
        Map<String, Set<String>> joined = new HashMap<>(CLUSTER);
        joined.put("n3", Set.of("slurmd"));

        assertEquals(Optional.empty(), KeyPhases.next(added, joined, all(2), T0, WAIT), "n3 has not reported");
        assertTrue(KeyPhases.next(added, joined, with(all(2), "n3", seen("slurmd", 2)), T0, WAIT)
                .isPresent());
    }

    @Test
    void aDaemonThatFallsBehindInSwitchedCountsTheTokenLifetimeAgain() {
        State loaded = KeyPhases.next(
                        KeyPhases.next(KeyPhases.rotate(first(), T0, "root"), CLUSTER, all(2), T0, WAIT)
                                .orElseThrow(),
                        CLUSTER,
                        all(3),
                        T0.plusSeconds(1),
                        WAIT)
                .orElseThrow();
        Map<String, JwksSeen> back = with(all(3), "n3", seen("slurmd", 1));
        Map<String, Set<String>> joined = new HashMap<>(CLUSTER);
        joined.put("n3", Set.of("slurmd"));

        State again =
                KeyPhases.next(loaded, joined, back, T0.plusSeconds(500), WAIT).orElseThrow();
        assertEquals(Optional.empty(), again.loadedEverywhere(), "n3 came back on generation 1");
        assertEquals(loaded.generation(), again.generation());
        assertEquals(Optional.empty(), KeyPhases.next(again, joined, back, T0.plusSeconds(600), WAIT));
    }

    @Test
    void withNoDaemonPlannedEveryPhaseMovesOnAndTheTokenLifetimeIsStillWaited() {
        State added = KeyPhases.rotate(first(), T0, "root");
        State switched = KeyPhases.next(added, Map.of(), Map.of(), T0, WAIT).orElseThrow();
        State loaded = KeyPhases.next(switched, Map.of(), Map.of(), T0, WAIT).orElseThrow();
        assertEquals(Optional.empty(), KeyPhases.next(loaded, Map.of(), Map.of(), T0.plusSeconds(89), WAIT));
        assertEquals(
                Phase.STEADY,
                KeyPhases.next(loaded, Map.of(), Map.of(), T0.plusSeconds(90), WAIT)
                        .orElseThrow()
                        .phase());
    }

    @Test
    void theNextStepIsSaidInOneSentence() {
        State s = first();
        assertEquals(
                "nothing: the cluster's first keys, never rotated (ctl slurm auth-key rotate makes a new one)",
                KeyPhases.nextStep(s, CLUSTER, all(1), WAIT));
        State added = KeyPhases.rotate(s, T0, "root");
        assertEquals(
                "slurmlet-2 signs once n0 (slurmctld), n1 (slurmd), n2 (slurmd) load generation 2 (a machine that is "
                        + "down holds the rotation here; the old key keeps working)",
                KeyPhases.nextStep(added, CLUSTER, all(1), WAIT));
        State switched = KeyPhases.next(added, CLUSTER, all(2), T0, WAIT).orElseThrow();
        assertEquals(
                "drops slurmlet-1 90 s after every daemon loaded generation 3",
                KeyPhases.nextStep(switched, CLUSTER, all(3), WAIT));
        State loaded = KeyPhases.next(switched, CLUSTER, all(3), T0, WAIT).orElseThrow();
        assertEquals(
                "drops slurmlet-1 at 2026-12-07T10:01:30Z (token ttl and margin, 90 s, after every daemon loaded generation 3)",
                KeyPhases.nextStep(loaded, CLUSTER, all(3), WAIT));
        State steady =
                KeyPhases.next(loaded, CLUSTER, all(3), T0.plus(WAIT), WAIT).orElseThrow();
        assertEquals(
                "nothing: rotation 1 ended, slurmlet-2 signs alone", KeyPhases.nextStep(steady, CLUSTER, all(4), WAIT));
    }

    @Test
    void aStateNamesNoKey() throws Exception {
        State added = KeyPhases.rotate(first(), T0, "root");
        String shown = added.toString();
        for (var key : new ObjectMapper().readTree(added.keys().jwks().text()).get("keys")) {
            assertFalse(shown.contains(key.get("k").asText().substring(0, 12)), shown);
        }
        assertTrue(shown.contains("slurmlet-2"), shown);
    }

    /**
     * The safety of the phases over random interleavings of daemons loading generations, machines
     * going unreported and coming back, machines joining, and time passing: a daemon signs with its
     * loaded list's default key, and every other daemon's loaded list accepts it; a list is published
     * only with a signing key every daemon's loaded list holds; a key is dropped only a token's
     * lifetime after the last daemon signed with it. And every rotation ends once the machines load.
     */
    @Test
    void noDaemonEverSignsWithAKeyAnotherDaemonsLoadedListLacks() {
        int rotationsEnded = 0;
        for (long seed = 1; seed <= 300; seed++) {
            rotationsEnded += interleave(new Random(seed), seed);
        }
        assertTrue(rotationsEnded > 300, "rotations did end: " + rotationsEnded);
    }

    /** One random run; how many rotations ended. */
    private static int interleave(Random random, long seed) {
        State s = first();
        Instant now = T0;
        Map<Long, SlurmJwks> published = new HashMap<>(Map.of(1L, s.keys().jwks()));
        Map<String, Set<String>> daemons = new TreeMap<>(CLUSTER);
        // What each daemon loaded, by "node unit"; every daemon starts on generation 1.
        Map<String, Long> loaded = new TreeMap<>();
        daemons.forEach((node, units) -> units.forEach(u -> loaded.put(node + " " + u, 1L)));
        Set<String> silent = new java.util.HashSet<>();
        Map<String, Instant> lastSigned = new HashMap<>();
        int ended = 0;
        for (int step = 0; step < 400; step++) {
            int action = random.nextInt(100);
            if (action < 40) {
                // A daemon loads a generation published since the one it holds (possibly skipping one).
                List<String> names = new ArrayList<>(loaded.keySet());
                String d = names.get(random.nextInt(names.size()));
                long from = loaded.get(d);
                loaded.put(d, from + (long) random.nextInt((int) (s.generation() - from) + 1));
            } else if (action < 55) {
                now = now.plusSeconds(random.nextInt(40));
            } else if (action < 62) {
                String node = "n" + random.nextInt(4);
                if (!silent.remove(node)) {
                    silent.add(node); // its reports stop (down, cut off, a new leader not reported to yet)
                }
            } else if (action < 64 && daemons.size() < 6) {
                String node = "n" + (daemons.size() + 10);
                daemons.put(node, Set.of("slurmd"));
                loaded.put(node + " slurmd", s.generation()); // starts on the file its plan carries
            } else if (action < 72 && s.phase() == Phase.STEADY) {
                s = KeyPhases.rotate(s, now, "seed " + seed);
                assertSafeToPublish(s, loaded, published, seed);
                published.put(s.generation(), s.keys().jwks());
            }
            for (Map.Entry<String, Long> d : loaded.entrySet()) {
                lastSigned.put(published.get(d.getValue()).signing(), now);
            }
            Map<String, JwksSeen> seen = new HashMap<>();
            loaded.forEach((d, g) -> {
                String node = d.split(" ")[0];
                if (!silent.contains(node)) {
                    Map<String, Long> units =
                            new HashMap<>(seen.getOrDefault(node, JwksSeen.NONE).loaded());
                    units.put(d.split(" ")[1], g);
                    seen.put(node, new JwksSeen(g, units));
                }
            });
            Optional<State> next = KeyPhases.next(s, daemons, seen, now, WAIT);
            if (next.isPresent()) {
                State before = s;
                s = next.get();
                if (s.generation() != before.generation()) {
                    assertSafeToPublish(s, loaded, published, seed);
                    for (String dropped : before.keys().jwks().kids()) {
                        if (!s.keys().jwks().kids().contains(dropped)) {
                            Instant last = lastSigned.getOrDefault(dropped, T0);
                            assertFalse(
                                    now.isBefore(last.plus(WAIT)),
                                    "seed %d: %s dropped at %s, signed with until %s"
                                            .formatted(seed, dropped, now, last));
                        }
                    }
                    published.put(s.generation(), s.keys().jwks());
                    ended += s.phase() == Phase.STEADY ? 1 : 0;
                }
            }
            // Every daemon's signing key is accepted by every daemon's loaded list.
            for (long a : loaded.values()) {
                for (long b : loaded.values()) {
                    String signs = published.get(a).signing();
                    assertTrue(
                            published.get(b).kids().contains(signs),
                            "seed %d: a daemon on generation %d signs with %s, one on %d lacks it"
                                    .formatted(seed, a, signs, b));
                }
            }
        }
        // Every machine reports and loads what is published: the rotation under way ends.
        ended += s.phase() == Phase.STEADY ? 0 : 1;
        for (int i = 0; i < 4 && s.phase() != Phase.STEADY; i++) {
            long g = s.generation();
            loaded.replaceAll((d, was) -> g);
            Map<String, JwksSeen> seen = new HashMap<>();
            loaded.forEach((d, was) -> {
                String node = d.split(" ")[0];
                Map<String, Long> units =
                        new HashMap<>(seen.getOrDefault(node, JwksSeen.NONE).loaded());
                units.put(d.split(" ")[1], g);
                seen.put(node, new JwksSeen(g, units));
            });
            now = now.plus(WAIT);
            s = KeyPhases.next(s, daemons, seen, now, WAIT).orElseThrow(() -> new AssertionError("stuck: " + seed));
            published.put(s.generation(), s.keys().jwks());
        }
        assertEquals(Phase.STEADY, s.phase(), "seed " + seed);
        assertEquals(1, s.keys().jwks().kids().size(), "seed " + seed);
        return ended;
    }

    /** The signing key of {@code s} is in every list a daemon loaded. */
    private static void assertSafeToPublish(
            State s, Map<String, Long> loaded, Map<Long, SlurmJwks> published, long seed) {
        for (Map.Entry<String, Long> d : loaded.entrySet()) {
            assertTrue(
                    published.get(d.getValue()).kids().contains(s.keys().jwks().signing()),
                    "seed %d: generation %d signs with %s, which %s's loaded generation %d lacks"
                            .formatted(seed, s.generation(), s.keys().jwks().signing(), d.getKey(), d.getValue()));
        }
    }
}
