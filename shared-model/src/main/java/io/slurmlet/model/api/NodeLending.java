package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Where one node is between the platform and Slurm, as {@code ctl slurm nodes} shows it.
 *
 * @param name        the node
 * @param phase       {@code platform}, {@code lending}, {@code lent} or {@code reclaiming}
 * @param wished      whether the settings lend it (the wish the phases move toward)
 * @param since       when it entered its phase (ISO-8601)
 * @param waitingFor  what keeps it from its next phase, as {@code job 1234 of alice still running}; empty: nothing
 * @param lastError   the last failure (a hook that failed or ran past its deadline); empty: none
 * @param lastErrorAt when that was; empty: none
 * @param hookOutput  the last lines the last hook printed; empty: none ran
 * @param slurm       the node as slurmctld last showed it; null: not reported
 * @param transitions the latest transitions, oldest first
 */
public record NodeLending(
        @JsonProperty("name") String name,
        @JsonProperty("phase") String phase,
        @JsonProperty("wished") boolean wished,
        @JsonProperty("since") String since,
        @JsonProperty("waiting_for") String waitingFor,
        @JsonProperty("last_error") String lastError,
        @JsonProperty("last_error_at") String lastErrorAt,
        @JsonProperty("hook_output") String hookOutput,
        @JsonProperty("slurm") SlurmNodeState slurm,
        @JsonProperty("transitions") List<Transition> transitions) {

    public NodeLending {
        waitingFor = waitingFor == null ? "" : waitingFor;
        lastError = lastError == null ? "" : lastError;
        lastErrorAt = lastErrorAt == null ? "" : lastErrorAt;
        hookOutput = hookOutput == null ? "" : hookOutput;
        transitions = transitions == null ? List.of() : List.copyOf(transitions);
    }

    /**
     * One change of phase.
     *
     * @param from the phase before
     * @param to   the phase after
     * @param at   when (ISO-8601)
     * @param why  what made it
     */
    public record Transition(
            @JsonProperty("from") String from,
            @JsonProperty("to") String to,
            @JsonProperty("at") String at,
            @JsonProperty("why") String why) {}
}
