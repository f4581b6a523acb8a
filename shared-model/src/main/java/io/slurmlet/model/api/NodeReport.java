package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.observed.Observed;
import java.util.List;

/**
 * What an agent posts after each reconcile pass.
 *
 * @param node         the machine
 * @param planRevision the plan revision the pass applied
 * @param steps        each step's last outcome, in the order they run
 * @param slurmNodes   from the controller only: every Slurm node as slurmctld showed it last
 * @param observed     what the steps last saw of the machine; {@link Observed#NOTHING} before they looked
 */
public record NodeReport(
        @JsonProperty("node") String node,
        @JsonProperty("plan_revision") long planRevision,
        @JsonProperty("steps") List<StepStatus> steps,
        @JsonProperty("slurm_nodes") List<SlurmNodeState> slurmNodes,
        @JsonProperty("observed") Observed observed) {

    public NodeReport {
        steps = steps == null ? List.of() : List.copyOf(steps);
        slurmNodes = slurmNodes == null ? List.of() : List.copyOf(slurmNodes);
        observed = observed == null ? Observed.NOTHING : observed;
    }

    public NodeReport(String node, long planRevision, List<StepStatus> steps, List<SlurmNodeState> slurmNodes) {
        this(node, planRevision, steps, slurmNodes, Observed.NOTHING);
    }

    /** A report of a machine that is not the controller. */
    public NodeReport(String node, long planRevision, List<StepStatus> steps) {
        this(node, planRevision, steps, List.of());
    }
}
