package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one machine must hold and run for the Slurm cluster: the desired state its agent's
 * reconcile steps make true. Made by the leader's planner, pure; sent to that machine only, over
 * the agents' TLS channel, since it carries the munge key.
 *
 * @param node     the machine
 * @param roles    what it runs; empty: nothing of Slurm's (the agent leaves what was installed)
 * @param packages the packages it needs, in the names of its package manager
 * @param mungeKey the cluster's munge key, for any machine with a role
 * @param slurmFiles Slurm's files, the same on every machine, each with its mode and owner; empty
 *                 until the controller has reported its Slurm version, which they are written for
 * @param services the systemd units that must be enabled and running (slurmd is left out when its
 *                 version cannot talk to the controller's)
 * @param problems why this machine cannot take part as planned, each naming versions and fix
 * @param nodeStates for the controller: each Slurm node's state as slurmlet wants it (its lending);
 *                 empty on every other machine
 * @param users    the accounts to keep as Linux users here (settings' users = "slurmlet"); null:
 *                 leave the machine's users alone
 * @param homeRoot where their homes are: {@code /home}, or {@code PATH/home} on shared storage
 * @param storage  what this machine does for the shared storage: mount, export, check, or none
 * @param pamAdopt whether pam_slurm_adopt is to be in sshd's stack here (users = "slurmlet" on a
 *                 compute node that is not the controller), once slurmd runs this plan's slurm.conf
 * @param plannedFrom the facts of this machine the leader made the plan from: what its agent's facts
 *                 step compares with the machine, reporting them again where they differ; empty in a
 *                 plan of a leader older than format 3
 */
public record NodePlan(
        @JsonProperty("node") String node,
        @JsonProperty("roles") Set<Role> roles,
        @JsonProperty("packages") List<String> packages,
        @JsonIgnore Optional<MungeKey> mungeKey,
        @JsonProperty("slurm_files") List<ManagedFile> slurmFiles,
        @JsonProperty("services") List<String> services,
        @JsonProperty("problems") List<Problem> problems,
        @JsonProperty("node_states") Map<String, NodeWish> nodeStates,
        @JsonProperty("users") List<io.slurmlet.model.users.Account> users,
        @JsonProperty("home_root") String homeRoot,
        @JsonProperty("storage") StoragePlan storage,
        @JsonProperty("pam_adopt") boolean pamAdopt,
        @JsonIgnore Optional<NodeFacts> plannedFrom) {

    /** A plan without shared storage, and pam_slurm_adopt where users are kept on a compute node that is not the controller. */
    public NodePlan(String node, Set<Role> roles, List<String> packages, Optional<MungeKey> mungeKey,
                    Map<String, String> files, List<String> services, List<Problem> problems, Map<String, NodeWish> nodeStates,
                    List<io.slurmlet.model.users.Account> users, String homeRoot) {
        this(node, roles, packages, mungeKey, configs(files), services, problems, nodeStates, users, homeRoot, StoragePlan.NONE,
                adoptsPam(roles, users != null), Optional.empty());
    }

    /**
     * Whether pam_slurm_adopt belongs in sshd's stack on a machine of {@code roles}: where users
     * are kept, on a compute node that is not the controller (users log in there to submit jobs).
     */
    public static boolean adoptsPam(Set<Role> roles, boolean keepsUsers) {
        return keepsUsers && roles.contains(Role.COMPUTE) && !roles.contains(Role.CONTROLLER);
    }

    /** This plan with other node states: what a lend or an unlend changes, and nothing else. */
    public NodePlan withNodeStates(Map<String, NodeWish> states) {
        return new NodePlan(node, roles, packages, mungeKey, slurmFiles, services, problems, states, users, homeRoot, storage, pamAdopt,
                plannedFrom);
    }

    /** This plan as made from {@code facts} of its machine. */
    public NodePlan madeFrom(NodeFacts facts) {
        return new NodePlan(node, roles, packages, mungeKey, slurmFiles, services, problems, nodeStates, users, homeRoot, storage, pamAdopt,
                Optional.of(facts));
    }

    /**
     * The plan's format: an agent refuses a plan of a later format than its own (a leader upgraded
     * first) rather than read a part of it wrong, and says to upgrade it. Format 3 adds
     * {@code planned_from}; a plan of format 2 is still read, as planned from no facts.
     */
    public static final int FORMAT = 3;

    /** Configuration files by path, each {@link ManagedFile#config}: 0644, root's. */
    public static List<ManagedFile> configs(Map<String, String> files) {
        return files.entrySet().stream().map(f -> ManagedFile.config(f.getKey(), f.getValue())).toList();
    }

    /** Slurm's files' content by path, in the plan's order. */
    @JsonIgnore
    public Map<String, String> files() {
        Map<String, String> files = new LinkedHashMap<>();
        slurmFiles.forEach(f -> files.put(f.path(), f.content()));
        return Collections.unmodifiableMap(files);
    }

    /** A plan without Slurm node states: every machine but the controller. */
    public NodePlan(String node, Set<Role> roles, List<String> packages, Optional<MungeKey> mungeKey,
                    Map<String, String> files, List<String> services, List<Problem> problems) {
        this(node, roles, packages, mungeKey, configs(files), services, problems, Map.of(), null, "/home", StoragePlan.NONE, false,
                Optional.empty());
    }

    /** A plan that leaves the machine's users alone. */
    public NodePlan(String node, Set<Role> roles, List<String> packages, Optional<MungeKey> mungeKey,
                    Map<String, String> files, List<String> services, List<Problem> problems, Map<String, NodeWish> nodeStates) {
        this(node, roles, packages, mungeKey, configs(files), services, problems, nodeStates, null, "/home", StoragePlan.NONE, false,
                Optional.empty());
    }

    public NodePlan {
        roles = Set.copyOf(roles);
        packages = List.copyOf(packages);
        slurmFiles = List.copyOf(slurmFiles);
        if (slurmFiles.stream().map(ManagedFile::path).distinct().count() != slurmFiles.size()) {
            throw new IllegalArgumentException("a plan names each file once");
        }
        services = List.copyOf(services);
        problems = List.copyOf(problems);
        nodeStates = Collections.unmodifiableMap(new java.util.TreeMap<>(nodeStates == null ? Map.of() : nodeStates));
        if (nodeStates.values().stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("every node state of a plan says resume or drain");
        }
        users = users == null ? null : List.copyOf(users);
        homeRoot = homeRoot == null || homeRoot.isEmpty() ? "/home" : homeRoot;
        storage = storage == null ? StoragePlan.NONE : storage;
        plannedFrom = plannedFrom == null ? Optional.empty() : plannedFrom;
    }

    @JsonCreator
    static NodePlan fromJson(@JsonProperty("format") Integer format,
                             @JsonProperty("node") String node, @JsonProperty("roles") Set<Role> roles,
                             @JsonProperty("packages") List<String> packages, @JsonProperty("munge_key") MungeKey mungeKey,
                             @JsonProperty("slurm_files") List<ManagedFile> slurmFiles, @JsonProperty("services") List<String> services,
                             @JsonProperty("problems") List<Problem> problems,
                             @JsonProperty("node_states") Map<String, NodeWish> nodeStates,
                             @JsonProperty("users") List<io.slurmlet.model.users.Account> users,
                             @JsonProperty("home_root") String homeRoot,
                             @JsonProperty("storage") StoragePlan storage,
                             @JsonProperty("pam_adopt") Boolean pamAdopt,
                             @JsonProperty("planned_from") NodeFacts plannedFrom,
                             @JsonProperty("shared") Object legacyShared,
                             @JsonProperty("files") Object legacyFiles) {
        if (format != null && format > FORMAT) {
            throw new IllegalArgumentException(("this plan is of format %d, which this agent's slurmlet (format %d) cannot read: upgrade "
                    + "slurmlet on this machine; it is left as it is until then").formatted(format, FORMAT));
        }
        if (format == null || legacyFiles != null || pamAdopt == null || legacyShared != null && storage == null) {
            // An older leader's plan has neither section: read as none, a mount under running jobs would
            // be removed and pam_slurm_adopt taken out of sshd. Never applied.
            throw new IllegalArgumentException("this plan comes from an older slurmlet on the leader (it has no format, no pam_adopt, "
                    + "or says shared, not storage): upgrade slurmlet on the leader; this machine is left as it is until then");
        }
        return new NodePlan(node, roles == null ? Set.of() : roles, packages == null ? List.of() : packages,
                Optional.ofNullable(mungeKey), slurmFiles == null ? List.of() : slurmFiles, services == null ? List.of() : services,
                problems == null ? List.of() : problems, nodeStates, users, homeRoot, storage, pamAdopt != null && pamAdopt,
                Optional.ofNullable(plannedFrom));
    }

    /** The format this plan is written in: {@link #FORMAT}. */
    @JsonProperty("format")
    int formatForJson() {
        return FORMAT;
    }

    /** The facts as the plan's JSON carries them; absent where the leader planned without them. */
    @JsonProperty("planned_from")
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    NodeFacts plannedFromForJson() {
        return plannedFrom.orElse(null);
    }

    /** The key as the plan's JSON carries it, to its own machine only; absent without a role. */
    @JsonProperty("munge_key")
    MungeKey mungeKeyForJson() {
        return mungeKey.orElse(null);
    }

    /** Whether a node is being taken back for the platform (the controller then watches for its last job to end). */
    public boolean reclaiming() {
        return nodeStates.values().stream().anyMatch(v -> v instanceof NodeWish.Drain d && d.reclaims());
    }

    public boolean runs(Role role) {
        return roles.contains(role);
    }
}
