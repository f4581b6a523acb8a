package io.slurmlet.model.observed;

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
 */
public record MungeSeen(
        @JsonProperty("key") boolean key,
        @JsonProperty("matches") boolean matches,
        @JsonProperty("owned") boolean owned,
        @JsonProperty("enabled") boolean enabled,
        @JsonProperty("active") boolean active) {
}
