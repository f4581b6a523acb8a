package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The last outcome of one reconcile step on one machine.
 *
 * @param step        the step, as {@code munge}
 * @param state       {@code unchanged}, {@code changed} or {@code failed}
 * @param detail      what matched, what was done, or why it failed
 * @param at          when the step last ran (ISO-8601)
 * @param lastError   the step's last failure, kept after it recovers; empty: none since the agent started
 * @param lastErrorAt when that failure was (ISO-8601); empty: none
 */
public record StepStatus(
        @JsonProperty("step") String step,
        @JsonProperty("state") String state,
        @JsonProperty("detail") String detail,
        @JsonProperty("at") String at,
        @JsonProperty("last_error") String lastError,
        @JsonProperty("last_error_at") String lastErrorAt) {

    public StepStatus {
        detail = detail == null ? "" : detail;
        at = at == null ? "" : at;
        lastError = lastError == null ? "" : lastError;
        lastErrorAt = lastErrorAt == null ? "" : lastErrorAt;
    }

    public boolean failed() {
        return "failed".equals(state);
    }
}
