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
 * @param nodes      the nodes it names, asked for ({@code -w}) or excluded ({@code -x}): Slurm fails it
 *                   when one of them leaves slurm.conf
 */
public record QueuedJob(@JsonProperty("id") String id, @JsonProperty("user") String user,
                        @JsonProperty("partitions") List<String> partitions, @JsonProperty("nodes") List<String> nodes) {

    private static final Pattern ID = Pattern.compile("[0-9]{1,12}(_[0-9]{1,10}|_\\[[0-9,\\-%]{1,200}\\])?");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@+-]{1,64}");

    public QueuedJob {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("a queued job's id is its number (an array's with its tasks), not " + id);
        }
        if (user == null || !NAME.matcher(user).matches()) {
            throw new IllegalArgumentException("a queued job's user is a login, not " + user);
        }
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
        if (partitions.size() > 1000 || partitions.stream().anyMatch(p -> !NAME.matcher(p).matches())) {
            throw new IllegalArgumentException("a queued job's partitions are partition names");
        }
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        if (nodes.size() > 100_000 || nodes.stream().anyMatch(n -> !NAME.matcher(n).matches())) {
            throw new IllegalArgumentException("a queued job's nodes are node names");
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
