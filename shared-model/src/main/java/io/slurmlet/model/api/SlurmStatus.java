package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.facts.ContainerFacts;
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
 * @param problems    what keeps the cluster from running as the settings say: the stored settings'
 *                    problems (a newer rule may find fault with settings stored before it), and what
 *                    the planner found (a Slurm version slurmlet cannot write for, version skew)
 * @param notes       what the leader waits for or assumes, as a controller newer than any Slurm
 *                    release slurmlet knows, or nodes whose agents have not reported yet
 * @param plannedFrom the settings' revision the leader last made the machines' plans from: below
 *                    {@code revision}, the leader is still planning a change; 0: not planned since it started
 */
public record SlurmStatus(
        @JsonProperty("revision") long revision,
        @JsonProperty("enabled") boolean enabled,
        @JsonProperty("cluster_name") String clusterName,
        @JsonProperty("controller") String controller,
        @JsonProperty("partition") String partition,
        @JsonProperty("nodes") List<NodeStatus> nodes,
        @JsonProperty("problems") List<Problem> problems,
        @JsonProperty("notes") List<String> notes,
        @JsonProperty("planned_from") long plannedFrom) {

    public SlurmStatus {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        problems = problems == null ? List.of() : List.copyOf(problems);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** Without the revision the plans were made from (not known). */
    public SlurmStatus(
            long revision,
            boolean enabled,
            String clusterName,
            String controller,
            String partition,
            List<NodeStatus> nodes,
            List<Problem> problems,
            List<String> notes) {
        this(revision, enabled, clusterName, controller, partition, nodes, problems, notes, 0);
    }

    /**
     * Whether every machine applied its newest plan, made from this revision of the settings or a
     * later one, with no step failed: a change has reached every machine when this holds.
     */
    public boolean settled() {
        return plannedFrom >= revision && nodes.stream().allMatch(NodeStatus::settled);
    }

    /**
     * One node.
     *
     * @param name  its name
     * @param roles what it runs for Slurm: {@code slurmctld}, {@code slurmd}, or both
     * @param lent  whether the settings lend it to Slurm now
     * @param slurm the Slurm version its agent reported; empty: not reported, or not installed
     * @param reported when its agent last reported a reconcile pass (ISO-8601); empty: not since the leader started
     * @param planRevision the plan revision that pass applied; 0: none
     * @param steps each reconcile step's last outcome there, with its last error
     * @param containers what it has for jobs in containers, as its agent reported it; null: nothing
     * @param gpus  the NVIDIA GPUs its agent reported (they need nvidia-container-cli for containers)
     * @param planPublished the revision of the plan the leader holds for it now: above {@code planRevision}, its
     *                      agent has not applied its newest plan yet; 0: none
     */
    public record NodeStatus(
            @JsonProperty("name") String name,
            @JsonProperty("roles") List<String> roles,
            @JsonProperty("lent") boolean lent,
            @JsonProperty("slurm") String slurm,
            @JsonProperty("reported") String reported,
            @JsonProperty("plan_revision") long planRevision,
            @JsonProperty("steps") List<StepStatus> steps,

            @JsonProperty("containers") @JsonInclude(JsonInclude.Include.NON_NULL)
            ContainerFacts containers,

            @JsonProperty("gpus") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
            int gpus,

            @JsonProperty("plan_published") long planPublished) {

        public NodeStatus {
            reported = reported == null ? "" : reported;
            steps = steps == null ? List.of() : List.copyOf(steps);
        }

        /** A node whose agent applied the plan the leader holds for it. */
        public NodeStatus(
                String name,
                List<String> roles,
                boolean lent,
                String slurm,
                String reported,
                long planRevision,
                List<StepStatus> steps,
                ContainerFacts containers,
                int gpus) {
            this(name, roles, lent, slurm, reported, planRevision, steps, containers, gpus, planRevision);
        }

        /** Without what the machine has for containers (nothing, or not reported). */
        public NodeStatus(
                String name,
                List<String> roles,
                boolean lent,
                String slurm,
                String reported,
                long planRevision,
                List<StepStatus> steps) {
            this(name, roles, lent, slurm, reported, planRevision, steps, null, 0, planRevision);
        }

        /** Its agent applied the plan the leader holds for it, and no step failed there. */
        public boolean settled() {
            return planPublished > 0
                    && planRevision >= planPublished
                    && !reported.isEmpty()
                    && steps.stream().noneMatch(StepStatus::failed);
        }

        /** A node whose agent has posted no pass yet. */
        public NodeStatus(String name, List<String> roles, boolean lent, String slurm) {
            this(name, roles, lent, slurm, "", 0, List.of());
        }
    }
}
