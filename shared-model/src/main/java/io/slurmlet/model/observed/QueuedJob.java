package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A job slurmctld holds that has not started (pending or held), as the controller's agent saw it
 * ({@code squeue -t PD}): it lives only in slurmctld's saved state, so moving the controller would
 * lose it, and Slurm fails it when a partition it names leaves slurm.conf (22.05 and 24.11 whichever
 * it names; 25.11 and later when it names no other).
 *
 * @param id         the job's id
 * @param user       whose it is
 * @param partitions the partitions it was submitted to, in its order
 * @param nodes      the host lists it names, as squeue prints them ({@code n[1-3]}), asked for ({@code -w})
 *                   or excluded ({@code -x}): Slurm fails it when one of their nodes leaves slurm.conf
 */
public record QueuedJob(
        @JsonProperty("id") String id,
        @JsonProperty("user") String user,
        @JsonProperty("partitions") List<String> partitions,
        @JsonProperty("nodes") List<String> nodes) {

    /** At most this many are reported, those of the lowest ids: a refusal then says "at least". */
    public static final int REPORTED_AT_MOST = 5000;
    /** A job's id as squeue prints it: {@code 12}, an array's {@code 12_3} or {@code 12_[3-9:2]}, a heterogeneous job's {@code 12+1}. */
    public static final Pattern ID = Pattern.compile("[0-9]{1,12}([_+][0-9A-Za-z\\[\\]\\-,:%.]{1,256})?");
    /** A login or a node or partition name: printable, no blank, no bar (squeue's field separator here). */
    public static final Pattern NAME = Pattern.compile("[\\x21-\\x7b\\x7d\\x7e]{1,256}");

    public QueuedJob {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException(
                    "a queued job's id is its number (an array's with its tasks), not " + id);
        }
        if (user == null || !NAME.matcher(user).matches()) {
            throw new IllegalArgumentException("a queued job's user is a login, not " + user);
        }
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
        if (partitions.size() > 1000
                || partitions.stream().anyMatch(p -> !NAME.matcher(p).matches())) {
            throw new IllegalArgumentException("a queued job's partitions are partition names");
        }
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        if (nodes.size() > 2 || nodes.stream().anyMatch(n -> !NAME.matcher(n).matches())) {
            throw new IllegalArgumentException("a queued job's nodes are at most two host lists");
        }
    }

    /** A job that names no node. */
    public QueuedJob(String id, String user, List<String> partitions) {
        this(id, user, partitions, List.of());
    }

    /** As a refusal names it: {@code 1234 of alice}. */
    @Override
    public String toString() {
        return id + " of " + user;
    }
}
