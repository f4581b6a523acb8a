package io.slurmlet.model.settings;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One thing wrong with some settings: the key as {@code ctl slurm set} spells it (with an index
 * for a list's element, as {@code nodes[2]}), the value found there, and a message that says
 * what is wrong and how to fix it.
 *
 * @param key     the setting, as {@code shared.path} or {@code lent[0]}
 * @param value   the value that was refused, as given; empty where the problem is a missing value
 * @param message the whole sentence a person reads, naming key, value and fix
 */
public record Problem(
        @JsonProperty("key") String key,
        @JsonProperty("value") String value,
        @JsonProperty("message") String message) {

    @Override
    public String toString() {
        return message;
    }
}
