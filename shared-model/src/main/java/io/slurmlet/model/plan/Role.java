package io.slurmlet.model.plan;

/** What a machine runs for the Slurm cluster. A machine can be both. */
public enum Role {
    /** Runs slurmctld: the settings' controller. */
    CONTROLLER,
    /** Runs slurmd: one of the settings' nodes, or any machine with all_nodes. */
    COMPUTE
}
