package io.slurmlet.agent.reconcile;

import io.slurmlet.model.observed.Observed;

/**
 * A step whose last look goes into its machine's report to the leader ({@link Observed}), whose dry
 * runs run the step's diff against it.
 */
public interface Reports {

    /** {@code report} with what this step last saw put in its section (left empty before its first look). */
    Observed reportInto(Observed report);
}
