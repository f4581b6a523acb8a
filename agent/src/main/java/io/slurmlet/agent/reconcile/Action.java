package io.slurmlet.agent.reconcile;

/**
 * One thing a step's {@link Reconciler#diff} found to do on a machine: what a preview shows before
 * it is done ({@link #will}) and what the outcome says once it is ({@link #did}). Each step has its
 * own sealed set of actions, which only its {@code act} knows how to do.
 */
public interface Action {

    /** What will be done, as a preview shows it: {@code unmount n0:/shared from /shared}. */
    String will();

    /** What was done, for the outcome; empty for housekeeping that is not worth a line (enabling a unit already meant to run). */
    String did();

    /** What a failure of this action means, from the port's error. */
    default String failed(String error) {
        return error;
    }
}
