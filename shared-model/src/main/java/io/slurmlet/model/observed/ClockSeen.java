package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * This machine's clock against its leader's, as its agent measured it over its status reports' round
 * trips (the leader says its time in each answer; the estimate is the one of the shortest round trip
 * among the last few, as NTP takes a server's): what a munge key's switch at one moment corrects
 * for, and what {@code ctl slurm munge-key status} shows.
 *
 * @param aheadMs how far the machine's clock is ahead of the leader's, in milliseconds (behind: below 0)
 * @param errorMs how far off that may be: half the round trip it was measured over
 */
public record ClockSeen(
        @JsonProperty("ahead_ms") long aheadMs,
        @JsonProperty("error_ms") long errorMs) {

    /** A year: a clock further off than that is not a measurement but a broken one. */
    static final long BOUND_MS = 366L * 24 * 3600 * 1000;

    public ClockSeen {
        if (Math.abs(aheadMs) > BOUND_MS || errorMs < 0 || errorMs > BOUND_MS) {
            throw new IllegalArgumentException("a clock's offset and error are milliseconds within a year");
        }
    }

    /** As a sentence's part: "3 ms ahead of the leader's (±1 ms)". */
    public String said() {
        String by = aheadMs == 0
                ? "the leader's"
                : "%d ms %s the leader's".formatted(Math.abs(aheadMs), aheadMs > 0 ? "ahead of" : "behind");
        return "%s (±%d ms)".formatted(by, errorMs);
    }
}
