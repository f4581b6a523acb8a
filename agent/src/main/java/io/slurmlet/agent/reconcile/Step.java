package io.slurmlet.agent.reconcile;

import io.slurmlet.model.plan.NodePlan;
import java.util.List;

/**
 * One concern of a machine made to match its plan: observe the machine, compare with what the plan
 * wants, act only on a difference. Applying the same plan twice changes nothing the second time.
 * A step never throws for a failure of the machine: it returns {@link Outcome#failed}.
 */
public interface Step {

    String name();

    Outcome apply(NodePlan plan);

    /**
     * Whether this step acts on the newest plan only. Such a step is also run beside the passes, at
     * once, for a plan that changes what it keeps (Slurm's node states on a lend): a pass of an
     * older plan must then not put the older wish back.
     */
    default boolean newestPlanOnly() {
        return false;
    }

    /**
     * What the last pass held back until the machine is free or another machine is ready (a mount
     * under running jobs, a server that does not export yet), each a sentence; the step is not failed
     * for it, and the machine is looked at again soon.
     */
    default List<String> waiting() {
        return List.of();
    }
}
