package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One node as slurmctld sees it, read by the controller's agent from {@code scontrol -o show node}
 * and {@code squeue} (never from sinfo's symbols).
 *
 * @param name   the node
 * @param state  its state words as scontrol prints them, as {@code IDLE+DRAIN} or {@code MIXED}
 * @param reason the reason of a drain or down state; empty: none
 * @param jobs   the jobs on it, each as {@code 1234 of alice}
 */
public record SlurmNodeState(
        @JsonProperty("name") String name,
        @JsonProperty("state") String state,
        @JsonProperty("reason") String reason,
        @JsonProperty("jobs") List<String> jobs) {

    /** Every reason slurmlet sets starts with this; a drain with any other reason is someone else's. */
    public static final String OUR_PREFIX = "slurmlet:";

    public SlurmNodeState {
        state = state == null ? "" : state;
        reason = reason == null ? "" : reason;
        jobs = jobs == null ? List.of() : List.copyOf(jobs);
    }

    public boolean drained() {
        return words().contains("DRAIN");
    }

    /**
     * Drained, down or failed with a reason that is not slurmlet's: an admin's or a health
     * check's. (An idle node's stale reason, which 24.11 keeps showing after a resume, holds nothing.)
     */
    public boolean drainedBySomeoneElse() {
        List<String> w = words();
        return (drained() || w.contains("DOWN") || w.contains("FAIL"))
                && !reason.isEmpty()
                && !reason.startsWith(OUR_PREFIX);
    }

    /** Down, not responding, or not registered: slurmctld cannot run anything there now. */
    public boolean unreachable() {
        List<String> w = words();
        return w.contains("DOWN") || w.contains("NOT_RESPONDING") || w.contains("FUTURE") || w.contains("UNKNOWN");
    }

    private List<String> words() {
        return List.of(state.replace('*', '+').split("\\+"));
    }
}
