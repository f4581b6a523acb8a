package io.slurmlet.agent.leader.lending;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.Locale;

/** Where a node is between the platform and Slurm. */
@RegisterForReflection
public enum Phase {
    /** The platform's: drained in Slurm with reason {@code slurmlet: not lent}. */
    PLATFORM,
    /** Asked to be lent: the platform moves its work off (the drain hook says when it is free). */
    LENDING,
    /** Slurm's: resumed where slurmlet's own drain held it. */
    LENT,
    /** Asked back: drained in Slurm, waiting for its last job to end, then released to the platform. */
    RECLAIMING;

    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
