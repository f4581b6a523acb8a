package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.settings.Problem;

import java.util.List;

/**
 * The Slurm cluster as the leader sees it now.
 *
 * @param revision    the settings' revision
 * @param enabled     whether slurmlet runs Slurm
 * @param clusterName Slurm's ClusterName
 * @param controller  the node that runs slurmctld; empty when none is named
 * @param partition   the one partition
 * @param nodes       every node named in the settings, the controller first
 * @param problems    what is wrong with the stored settings (normally nothing: a refused change is
 *                    never stored, but a newer rule may find fault with settings stored before it)
 */
public record SlurmStatus(
        @JsonProperty("revision") long revision,
        @JsonProperty("enabled") boolean enabled,
        @JsonProperty("cluster_name") String clusterName,
        @JsonProperty("controller") String controller,
        @JsonProperty("partition") String partition,
        @JsonProperty("nodes") List<NodeStatus> nodes,
        @JsonProperty("problems") List<Problem> problems) {

    /**
     * One node.
     *
     * @param name  its name
     * @param roles what it runs for Slurm: {@code slurmctld}, {@code slurmd}, or both
     * @param lent  whether the settings lend it to Slurm now
     */
    public record NodeStatus(
            @JsonProperty("name") String name,
            @JsonProperty("roles") List<String> roles,
            @JsonProperty("lent") boolean lent) {
    }
}
