package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A machine's plan as the leader publishes it: an agent polls with the revision it holds and is
 * answered when the leader has another.
 *
 * @param revision this machine's plan revision; it rises only when the machine's own plan changes
 * @param plan     the plan
 */
public record PublishedPlan(
        @JsonProperty("revision") long revision,
        @JsonProperty("plan") NodePlan plan) {

    /**
     * Whether {@code next} differs from this plan (the one applied last) in Slurm's node states and in
     * nothing else: a lend or an unlend, which the controller applies at once, not after a pass.
     */
    public boolean onlyNodeStatesChangeTo(PublishedPlan next) {
        return !plan.nodeStates().equals(next.plan().nodeStates())
                && plan.equals(next.plan().withNodeStates(plan.nodeStates()));
    }
}
