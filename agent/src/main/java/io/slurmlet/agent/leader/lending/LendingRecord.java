package io.slurmlet.agent.leader.lending;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.model.api.NodeLending.Transition;
import java.util.ArrayList;
import java.util.List;

/**
 * One node's lending, as the leader keeps it (its own document, {@code lending/NODE}): the phase, when it began, what
 * it waits for, the last error, when a hook may run next, and the latest transitions.
 *
 * @param node         the node
 * @param phase        its phase
 * @param since        when it entered the phase (ISO-8601)
 * @param waitingFor   what keeps it from the next phase; empty: nothing
 * @param lastError    the last failure; empty: none
 * @param lastErrorAt  when
 * @param hookOutput   the last lines the last hook printed
 * @param attempts     hook runs since the phase began that did not end it
 * @param nextTry      no hook runs before this (ISO-8601); empty: at once
 * @param transitions  the latest transitions, oldest first, at most {@link #KEPT}
 * @param hookRunning  the hook the leader started and has not seen end ({@code drain} or
 *                     {@code release}), written before the hook runs: a leader that finds one at
 *                     its start knows the last one stopped during it; empty: none (and left out of
 *                     the file, which a leader older than these fields can then still read)
 * @param hookStartedAt when it started
 */
@RegisterForReflection
public record LendingRecord(
        @JsonProperty("node") String node,
        @JsonProperty("phase") Phase phase,
        @JsonProperty("since") String since,
        @JsonProperty("waiting_for") String waitingFor,
        @JsonProperty("last_error") String lastError,
        @JsonProperty("last_error_at") String lastErrorAt,
        @JsonProperty("hook_output") String hookOutput,
        @JsonProperty("attempts") int attempts,
        @JsonProperty("next_try") String nextTry,
        @JsonProperty("transitions") List<Transition> transitions,

        @JsonProperty("hook_running") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String hookRunning,

        @JsonProperty("hook_started_at") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String hookStartedAt) {

    /** How many transitions a node keeps. */
    public static final int KEPT = 20;

    public LendingRecord {
        waitingFor = waitingFor == null ? "" : waitingFor;
        lastError = lastError == null ? "" : lastError;
        lastErrorAt = lastErrorAt == null ? "" : lastErrorAt;
        hookOutput = hookOutput == null ? "" : hookOutput;
        nextTry = nextTry == null ? "" : nextTry;
        transitions = transitions == null ? List.of() : List.copyOf(transitions);
        hookRunning = hookRunning == null ? "" : hookRunning;
        hookStartedAt = hookStartedAt == null ? "" : hookStartedAt;
    }

    public LendingRecord(
            String node,
            Phase phase,
            String since,
            String waitingFor,
            String lastError,
            String lastErrorAt,
            String hookOutput,
            int attempts,
            String nextTry,
            List<Transition> transitions) {
        this(
                node,
                phase,
                since,
                waitingFor,
                lastError,
                lastErrorAt,
                hookOutput,
                attempts,
                nextTry,
                transitions,
                "",
                "");
    }

    /** This record with {@code hook} noted as started at {@code at}: what the leader writes before running it. */
    public LendingRecord hookStarted(String hook, String at) {
        return new LendingRecord(
                node,
                phase,
                since,
                waitingFor,
                lastError,
                lastErrorAt,
                hookOutput,
                attempts,
                nextTry,
                transitions,
                hook,
                at);
    }

    /** This record with no hook noted as running. */
    public LendingRecord hookEnded() {
        return new LendingRecord(
                node,
                phase,
                since,
                waitingFor,
                lastError,
                lastErrorAt,
                hookOutput,
                attempts,
                nextTry,
                transitions,
                "",
                "");
    }

    /** A node the leader has not seen lent: the platform's since {@code at}. */
    public static LendingRecord platform(String node, String at) {
        return new LendingRecord(node, Phase.PLATFORM, at, "", "", "", "", 0, "", List.of());
    }

    /** This record moved to {@code next}, with the transition noted; waits, attempts and the next try start over. */
    public LendingRecord moved(Phase next, String at, String why) {
        List<Transition> kept = new ArrayList<>(transitions);
        kept.add(new Transition(phase.word(), next.word(), at, why));
        while (kept.size() > KEPT) {
            kept.remove(0);
        }
        return new LendingRecord(
                node, next, at, "", lastError, lastErrorAt, hookOutput, 0, "", kept, hookRunning, hookStartedAt);
    }

    /** Whether the last move was the one into this phase from {@code from}. */
    public boolean enteredFrom(Phase from) {
        if (transitions.isEmpty()) {
            return false;
        }
        Transition last = transitions.get(transitions.size() - 1);
        return last.to().equals(phase.word()) && last.from().equals(from.word());
    }

    /**
     * Reclaimed from lending: the last move was lending → reclaiming, so the platform's drain hook never
     * said it had freed the node, and a lend now must ask it again before Slurm runs jobs there.
     */
    public boolean reclaimedWhileLending() {
        if (phase != Phase.RECLAIMING || transitions.isEmpty()) {
            return false;
        }
        var last = transitions.get(transitions.size() - 1);
        return last.from().equals(Phase.LENDING.word()) && last.to().equals(Phase.RECLAIMING.word());
    }

    public LendingRecord waiting(String what) {
        return new LendingRecord(
                node,
                phase,
                since,
                what,
                lastError,
                lastErrorAt,
                hookOutput,
                attempts,
                nextTry,
                transitions,
                hookRunning,
                hookStartedAt);
    }

    /** A hook ran and did not end the phase: counted, and the next run not before {@code nextTry}. */
    public LendingRecord retried(String what, String error, String errorAt, String output, String nextTry) {
        return new LendingRecord(
                node,
                phase,
                since,
                what,
                error.isEmpty() ? lastError : error,
                error.isEmpty() ? lastErrorAt : errorAt,
                output,
                attempts + 1,
                nextTry,
                transitions,
                hookRunning,
                hookStartedAt);
    }

    /**
     * A hook noted as running that no leader runs now: the leader stopped during it, and whether it
     * finished is not known. Said so; the phase's rules run it again (a hook must take being run
     * again; {@code {run}} in its argv is the same on every run of one transition's hook).
     */
    public LendingRecord interrupted(String at) {
        return new LendingRecord(
                node,
                phase,
                since,
                waitingFor,
                ("the %s hook was running when the leader stopped (started at %s); " + "it runs again")
                        .formatted(hookRunning, hookStartedAt),
                at,
                hookOutput,
                attempts,
                nextTry,
                transitions,
                "",
                "");
    }

    public LendingRecord withOutput(String output) {
        return new LendingRecord(
                node,
                phase,
                since,
                waitingFor,
                lastError,
                lastErrorAt,
                output,
                attempts,
                nextTry,
                transitions,
                hookRunning,
                hookStartedAt);
    }
}
