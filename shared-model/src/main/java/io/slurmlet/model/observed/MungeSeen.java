package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the munge step saw: never the key, nor a digest of it; only whether the machine's key is the
 * one of the plan it was compared with.
 *
 * @param key     whether /etc/munge/munge.key exists
 * @param matches whether it holds the cluster's key
 * @param owned   whether it is 0400 and munge's
 * @param enabled whether munge's unit is enabled
 * @param active  whether munged runs
 * @param rotation where it matches, the rotation that made the plan's key ({@code ctl slurm munge-key
 *                 rotate}; 0 for the cluster's first key): how the leader tells which machines hold a
 *                 new key; null where it does not match, and from agents older than rotations
 */
public record MungeSeen(
        @JsonProperty("key") boolean key,
        @JsonProperty("matches") boolean matches,
        @JsonProperty("owned") boolean owned,
        @JsonProperty("enabled") boolean enabled,
        @JsonProperty("active") boolean active,

        @JsonProperty("rotation") @JsonInclude(JsonInclude.Include.NON_NULL)
        Long rotation) {

    /** What an agent older than key rotations reports. */
    public MungeSeen(boolean key, boolean matches, boolean owned, boolean enabled, boolean active) {
        this(key, matches, owned, enabled, active, null);
    }
}
