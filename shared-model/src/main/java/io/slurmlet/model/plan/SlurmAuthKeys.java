package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * Slurm's own authentication keys as a plan carries them to a machine under {@code auth=slurm}: the
 * key list {@code /etc/slurm/slurm.jwks} holds there, and its generation, which the leader counts
 * up with every change of the list, so that a machine can say which list its daemons loaded. Like
 * the munge key, sent to its own machine only; {@link #toString()} names kids only.
 *
 * @param generation 1 for the cluster's first keys, one more with every change of the list
 * @param jwks       the keys
 */
public record SlurmAuthKeys(
        @JsonProperty("generation") long generation,
        @JsonProperty("jwks") SlurmJwks jwks) {

    public SlurmAuthKeys {
        Objects.requireNonNull(jwks, "slurm_jwks holds jwks, the keys");
        if (generation < 1) {
            throw new IllegalArgumentException("slurm_jwks's generation is 1 or more, not " + generation);
        }
    }

    @Override
    public String toString() {
        return "SlurmAuthKeys[generation " + generation + ", " + jwks + "]";
    }
}
