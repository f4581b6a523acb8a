package io.slurmlet.agent.reconcile;

import io.slurmlet.model.plan.NodePlan;

/**
 * One concern of a machine made to match its plan: observe the machine, compare with what the plan
 * wants, act only on a difference. Applying the same plan twice changes nothing the second time.
 * A step never throws for a failure of the machine: it returns {@link Outcome#failed}.
 */
public interface Step {

    String name();

    Outcome apply(NodePlan plan);
}
