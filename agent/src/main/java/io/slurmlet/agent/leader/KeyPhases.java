package io.slurmlet.agent.leader;

import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.SlurmAuthKeys;
import io.slurmlet.model.plan.SlurmJwks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rotation of Slurm's own keys in three phases, each a new generation of the key list that every
 * planned slurmctld and slurmd loads before the next (system-tests/slurm/FINDINGS.md, "auth/slurm
 * and slurm.jwks": a list replaced in one step splits the cluster for good):
 *
 * <ol>
 *   <li>{@link Phase#ADDED}: a new key beside the old one, which still signs;
 *   <li>{@link Phase#SWITCHED}: the new key signs, the old one is still accepted;
 *   <li>{@link Phase#STEADY}: once every daemon loaded the switch and a token's lifetime (AuthInfo's
 *       {@code ttl}, 60 s by default) and a margin have passed, the old key is dropped.
 * </ol>
 *
 * <p>So the leader never publishes a list whose signing key some daemon's loaded list lacks, nor drops a
 * key some daemon may still sign with. Pure: no I/O, no clock; {@link SlurmKeys} keeps the state and
 * SlurmKeysDriver moves it on.
 */
public final class KeyPhases {

    /** Slurm's daemons whose loaded keys a phase waits for (slurmlet runs no slurmdbd, sackd or stepmgr). */
    public static final Set<String> DAEMONS = Set.of("slurmctld", "slurmd");

    /** Where a rotation is. */
    public enum Phase {
        /** One key, which signs: no rotation under way. */
        STEADY,
        /** A new key added beside the one that signs: waits for every daemon to load it. */
        ADDED,
        /** The new key signs, the old one still accepted: waits for every daemon, then a token's lifetime. */
        SWITCHED
    }

    /**
     * The cluster's keys and where their rotation is.
     *
     * @param keys             the key list every plan carries, with its generation
     * @param phase            where the rotation is
     * @param since            when this phase began (for the first keys, when they were made)
     * @param loadedEverywhere in {@link Phase#SWITCHED}, since when every planned daemon has loaded
     *                         it: the old key is dropped a token's lifetime and a margin later
     * @param nextKid          the number of the next kid the leader makes ({@code slurmlet-<n>})
     * @param rotation         0 for the cluster's first keys, then one more a rotation
     * @param requested        when the last rotation was asked; empty for the first keys
     * @param by               who asked it, as the leader's log names callers; "" for the first keys
     */
    public record State(
            SlurmAuthKeys keys,
            Phase phase,
            Instant since,
            Optional<Instant> loadedEverywhere,
            long nextKid,
            long rotation,
            Optional<Instant> requested,
            String by) {

        public State {
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(phase, "phase");
            Objects.requireNonNull(since, "since");
            loadedEverywhere = loadedEverywhere == null ? Optional.empty() : loadedEverywhere;
            requested = requested == null ? Optional.empty() : requested;
            by = by == null ? "" : by;
            if (nextKid < 2 || rotation < 0) {
                throw new IllegalArgumentException("next_kid is 2 or more and rotation 0 or more");
            }
            if (loadedEverywhere.isPresent() && phase != Phase.SWITCHED) {
                throw new IllegalArgumentException("loaded_everywhere is said in phase SWITCHED only");
            }
        }

        /** The cluster's first keys: generation 1, STEADY, never rotated. */
        public static State first(SlurmAuthKeys keys, Instant made, long nextKid) {
            return new State(keys, Phase.STEADY, made, Optional.empty(), nextKid, 0, Optional.empty(), "");
        }

        public long generation() {
            return keys.generation();
        }

        /** This state with other keys, a generation further, in {@code phase} from {@code now}. */
        State published(SlurmJwks jwks, Phase phase, Instant now) {
            return new State(
                    new SlurmAuthKeys(generation() + 1, jwks),
                    phase,
                    now,
                    Optional.empty(),
                    nextKid,
                    rotation,
                    requested,
                    by);
        }
    }

    private KeyPhases() {}

    /**
     * Begins a rotation: a new key, {@code slurmlet-<nextKid>}, beside the one that signs.
     *
     * @throws IllegalStateException while a rotation is under way
     */
    public static State rotate(State s, Instant now, String by) {
        if (s.phase() != Phase.STEADY) {
            throw new IllegalStateException(underWay(s));
        }
        String kid = "slurmlet-" + s.nextKid();
        return new State(
                new SlurmAuthKeys(s.generation() + 1, s.keys().jwks().withNewKey(kid)),
                Phase.ADDED,
                now,
                Optional.empty(),
                s.nextKid() + 1,
                s.rotation() + 1,
                Optional.of(now),
                by);
    }

    /** Why another rotation waits: this one is under way. */
    public static String underWay(State s) {
        return "rotation %d of Slurm's keys is under way (phase %s since %s): wait for it to end (ctl slurm auth-key status)"
                .formatted(s.rotation(), s.phase(), s.since());
    }

    /**
     * The state that follows {@code s}, if any.
     *
     * @param daemons       the planned daemons, slurmctld and slurmd, by machine, of every plan that carries Slurm's keys
     * @param seen          each machine's last report of its keys; a machine missing here has not reported
     * @param ttlPlusMargin how long a token signed with the old key lives, and a margin
     */
    public static Optional<State> next(
            State s,
            Map<String, Set<String>> daemons,
            Map<String, SlurmSeen.JwksSeen> seen,
            Instant now,
            Duration ttlPlusMargin) {
        boolean everywhere = lagging(s, daemons, seen).isEmpty();
        switch (s.phase()) {
            case STEADY:
                return Optional.empty();
            case ADDED:
                if (!everywhere) {
                    return Optional.empty();
                }
                List<String> kids = s.keys().jwks().kids();
                return Optional.of(
                        s.published(s.keys().jwks().signingWith(kids.get(kids.size() - 1)), Phase.SWITCHED, now));
            case SWITCHED:
                if (!everywhere) {
                    // A daemon lags (a machine back with older keys, a new leader not reported to yet): the
                    // token lifetime is counted again once it has loaded the switch too.
                    return s.loadedEverywhere().isPresent()
                            ? Optional.of(withLoadedEverywhere(s, Optional.empty()))
                            : Optional.empty();
                }
                if (s.loadedEverywhere().isEmpty()) {
                    return Optional.of(withLoadedEverywhere(s, Optional.of(now)));
                }
                if (now.isBefore(s.loadedEverywhere().get().plus(ttlPlusMargin))) {
                    return Optional.empty();
                }
                SlurmJwks dropped = s.keys().jwks();
                for (String kid : s.keys().jwks().kids()) {
                    if (!kid.equals(dropped.signing())) {
                        dropped = dropped.without(kid);
                    }
                }
                return Optional.of(s.published(dropped, Phase.STEADY, now));
            default:
                throw new IllegalStateException("no such phase: " + s.phase());
        }
    }

    private static State withLoadedEverywhere(State s, Optional<Instant> at) {
        return new State(s.keys(), s.phase(), s.since(), at, s.nextKid(), s.rotation(), s.requested(), s.by());
    }

    /** The generation {@code node}'s {@code unit} loaded, as its last report says; empty where it said none. */
    public static Optional<Long> loaded(Map<String, SlurmSeen.JwksSeen> seen, String node, String unit) {
        SlurmSeen.JwksSeen j = seen.get(node);
        return j == null ? Optional.empty() : Optional.ofNullable(j.loaded().get(unit));
    }

    /** The planned daemons that have not loaded {@code s}'s generation, as "n1 (slurmd)", by machine. */
    public static List<String> lagging(
            State s, Map<String, Set<String>> daemons, Map<String, SlurmSeen.JwksSeen> seen) {
        List<String> lagging = new ArrayList<>();
        new TreeMap<>(daemons).forEach((node, units) -> {
            for (String unit : new TreeSet<>(units)) {
                if (DAEMONS.contains(unit)
                        && loaded(seen, node, unit)
                                .filter(g -> g >= s.generation())
                                .isEmpty()) {
                    lagging.add(node + " (" + unit + ")");
                }
            }
        });
        return lagging;
    }

    /**
     * What the rotation waits for next, in one sentence: the daemons that have not loaded this
     * generation (the first five), or when the old key is dropped.
     */
    public static String nextStep(
            State s, Map<String, Set<String>> daemons, Map<String, SlurmSeen.JwksSeen> seen, Duration ttlPlusMargin) {
        if (s.phase() == Phase.STEADY) {
            return s.rotation() == 0
                    ? "nothing: the cluster's first keys, never rotated (ctl slurm auth-key rotate makes a new one)"
                    : "nothing: rotation %d ended, %s signs alone"
                            .formatted(s.rotation(), s.keys().jwks().signing());
        }
        List<String> lagging = lagging(s, daemons, seen);
        String then = s.phase() == Phase.ADDED
                ? "%s signs".formatted(newest(s))
                : "the token lifetime and margin (%d s) are counted".formatted(ttlPlusMargin.toSeconds());
        if (!lagging.isEmpty()) {
            int shown = Math.min(5, lagging.size());
            return "%s once %s load%s generation %d (a machine that is down holds the rotation here; the old key keeps working)"
                    .formatted(
                            then,
                            String.join(", ", lagging.subList(0, shown)) + (lagging.size() > shown ? ", …" : ""),
                            lagging.size() == 1 ? "s" : "",
                            s.generation());
        }
        if (s.phase() == Phase.ADDED) {
            return "%s next: every daemon loaded generation %d".formatted(then, s.generation());
        }
        String old = String.join(
                ", ",
                s.keys().jwks().kids().stream()
                        .filter(k -> !k.equals(s.keys().jwks().signing()))
                        .toList());
        return s.loadedEverywhere()
                .map(at -> "drops %s at %s (token ttl and margin, %d s, after every daemon loaded generation %d)"
                        .formatted(old, at.plus(ttlPlusMargin), ttlPlusMargin.toSeconds(), s.generation()))
                .orElse("drops %s %d s after every daemon loaded generation %d"
                        .formatted(old, ttlPlusMargin.toSeconds(), s.generation()));
    }

    private static String newest(State s) {
        List<String> kids = s.keys().jwks().kids();
        return kids.get(kids.size() - 1);
    }
}
