package io.slurmlet.model.settings;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.regex.Pattern;

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

    /**
     * The message as a person reads it: led by {@code key=value} where the sentence names neither
     * the setting (its key, or the key's last part: {@code email} of {@code accounts[1].email})
     * nor the value refused. A refusal that speaks of what the change would do ("n0 would stop
     * exporting /shared to n1 …") so says which setting it refuses.
     */
    public String shown() {
        String said = message == null ? "" : message;
        String v = value == null ? "" : value;
        if (key == null || key.isEmpty()) {
            return said;
        }
        String last = key.substring(key.lastIndexOf('.') + 1);
        if (names(said, key) || names(said, last) || !v.isEmpty() && names(said, v)) {
            return said;
        }
        return key + "=" + v + ": " + said;
    }

    /** Whether {@code word} stands in {@code sentence} as a word of its own (n1 is not in n10 or cn1). */
    private static boolean names(String sentence, String word) {
        return Pattern.compile("(?<![\\w.-])" + Pattern.quote(word) + "(?![\\w-])")
                .matcher(sentence)
                .find();
    }

    @Override
    public String toString() {
        return message;
    }
}
