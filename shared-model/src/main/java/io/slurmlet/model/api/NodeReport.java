package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * What an agent posts after each reconcile pass.
 *
 * @param node         the machine
 * @param planRevision the plan revision the pass applied
 * @param steps        each step's last outcome, in the order they run
 */
public record NodeReport(
        @JsonProperty("node") String node,
        @JsonProperty("plan_revision") long planRevision,
        @JsonProperty("steps") List<StepStatus> steps) {

    public NodeReport {
        steps = steps == null ? List.of() : List.copyOf(steps);
    }
}
