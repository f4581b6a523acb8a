package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one machine must hold and run for the Slurm cluster: the desired state its agent's reconcile
 * steps make true, one section per step, so that no step reads another's. Made by the leader's
 * planner, pure; sent to that machine only, over the agents' TLS channel, since it carries the munge
 * key.
 *
 * @param node       the machine
 * @param roles      what it runs; empty: nothing of Slurm's (the agent leaves what was installed)
 * @param packages   the packages it needs, in the names of its package manager
 * @param mungeKey   the cluster's munge key, for any machine with a role under auth=munge
 * @param slurmKeys  Slurm's own authentication keys (slurm.jwks), for a machine that holds Slurm's
 *                   files under auth=slurm
 * @param storage    what this machine does for the shared storage: mount, export, check, or none
 * @param users      whether the cluster's accounts are kept as Linux users here, and where their homes are
 * @param slurm      Slurm's files and the daemons that must run
 * @param pam        whether pam_slurm_adopt is to be in sshd's stack here
 * @param containers enroot and pyxis to install here, or nothing
 * @param nodeStates for the controller: each Slurm node's state as slurmlet wants it (its lending);
 *                   empty on every other machine
 * @param problems   why this machine cannot take part as planned, each naming versions and fix
 * @param plannedFrom the facts of this machine the leader made the plan from: what its agent's facts
 *                   step compares with the machine, reporting them again where they differ; empty in a
 *                   plan of a leader older than format 3
 */
public record NodePlan(
        @JsonProperty("node") String node,
        @JsonProperty("roles") Set<Role> roles,
        @JsonProperty("packages") List<String> packages,
        @JsonIgnore Optional<MungeKey> mungeKey,
        @JsonIgnore Optional<SlurmAuthKeys> slurmKeys,
        @JsonProperty("storage") StoragePlan storage,
        @JsonProperty("linux_users") UsersPlan users,
        @JsonProperty("slurm") SlurmPlan slurm,
        @JsonProperty("pam") PamPlan pam,
        @JsonProperty("containers") ContainersPlan containers,
        @JsonProperty("node_states") Map<String, NodeWish> nodeStates,
        @JsonProperty("problems") List<Problem> problems,
        @JsonIgnore Optional<NodeFacts> plannedFrom) {

    /**
     * The plan's format: an agent refuses a plan of a later format than its own (a leader upgraded
     * first) rather than read a part of it wrong, and says to upgrade it. Format 3 added
     * {@code planned_from}; format 4 puts Slurm's files and daemons, the accounts and the PAM decision
     * in sections of their own ({@code slurm}, {@code linux_users}, {@code pam}); format 5 adds the
     * slurm section's {@code retired} daemons (an agent of format 4 would leave an old slurmctld
     * running). Format 6 adds the {@code containers} section (an agent of format 5 would not
     * install pyxis, and the leader would wait for it for ever). Format 7 adds each artifact's size
     * ({@code bytes}), which the machine takes no byte more of; a plan none of whose artifacts has
     * one is still written as format 6 ({@link #UNSIZED_FORMAT}), so that an agent of format 6 reads
     * every plan but those that install containers from a table with sizes. Plans of format 2 to 6
     * are still read, as retiring nothing (before 5), installing no containers (before 6) and
     * fetching files of any size up to the agent's ceiling (before 7). Format 8 adds
     * {@code slurm_jwks}, Slurm's own authentication keys; only a plan that carries them is written
     * as format 8, so that an agent of format 7 reads every plan of a cluster under auth=munge, and
     * refuses (rather than run its daemons on munge beside a cluster that left it) one under auth=slurm.
     */
    public static final int FORMAT = 8;
    /** The format of a plan that carries no slurm.jwks but whose artifacts pin sizes. */
    public static final int SIZED_FORMAT = 7;
    /** The format of a plan whose artifacts pin no size and that carries no slurm.jwks. */
    public static final int UNSIZED_FORMAT = 6;

    public NodePlan {
        Objects.requireNonNull(node, "a plan names its machine");
        // In Role's order, not Set.copyOf's (which differs from one JVM to the next): the plan's
        // JSON, and so its digest (PlanDigest), is the same in every process that makes it.
        roles = Collections.unmodifiableSet(roles.isEmpty() ? EnumSet.noneOf(Role.class) : EnumSet.copyOf(roles));
        packages = List.copyOf(packages);
        mungeKey = mungeKey == null ? Optional.empty() : mungeKey;
        slurmKeys = slurmKeys == null ? Optional.empty() : slurmKeys;
        storage = storage == null ? StoragePlan.NONE : storage;
        users = users == null ? UsersPlan.LEAVE : users;
        slurm = slurm == null ? SlurmPlan.NONE : slurm;
        pam = pam == null ? PamPlan.OFF : pam;
        containers = containers == null ? ContainersPlan.NONE : containers;
        nodeStates = Collections.unmodifiableMap(new TreeMap<>(nodeStates == null ? Map.of() : nodeStates));
        if (nodeStates.values().stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("every node state of a plan says resume or drain");
        }
        problems = List.copyOf(problems);
        plannedFrom = plannedFrom == null ? Optional.empty() : plannedFrom;
    }

    /** A plan of nothing for {@code node}: no role, no packages, nothing of Slurm's; the sections are added with the {@code with} methods. */
    public static NodePlan of(String node, Set<Role> roles) {
        return new NodePlan(
                node,
                roles,
                List.of(),
                Optional.empty(),
                Optional.empty(),
                StoragePlan.NONE,
                UsersPlan.LEAVE,
                SlurmPlan.NONE,
                PamPlan.OFF,
                ContainersPlan.NONE,
                Map.of(),
                List.of(),
                Optional.empty());
    }

    public NodePlan withPackages(List<String> names) {
        return new NodePlan(
                node,
                roles,
                names,
                mungeKey,
                slurmKeys,
                storage,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    public NodePlan withMungeKey(Optional<MungeKey> key) {
        return new NodePlan(
                node,
                roles,
                packages,
                key,
                slurmKeys,
                storage,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    public NodePlan withSlurmKeys(Optional<SlurmAuthKeys> keys) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                keys,
                storage,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    public NodePlan withStorage(StoragePlan section) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                section,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    public NodePlan withUsers(UsersPlan section) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                section,
                slurm,
                pam,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    public NodePlan withSlurm(SlurmPlan section) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                users,
                section,
                pam,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    /** This plan with Slurm's files {@link SlurmPlan#configs} of {@code files} and {@code services}. */
    public NodePlan withSlurm(Map<String, String> files, List<String> services) {
        return withSlurm(new SlurmPlan(SlurmPlan.configs(files), services));
    }

    public NodePlan withPam(PamPlan section) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                users,
                slurm,
                section,
                containers,
                nodeStates,
                problems,
                plannedFrom);
    }

    public NodePlan withContainers(ContainersPlan section) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                users,
                slurm,
                pam,
                section,
                nodeStates,
                problems,
                plannedFrom);
    }

    /** This plan with other node states: what a lend or an unlend changes, and nothing else. */
    public NodePlan withNodeStates(Map<String, NodeWish> states) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                users,
                slurm,
                pam,
                containers,
                states,
                problems,
                plannedFrom);
    }

    public NodePlan withProblems(List<Problem> found) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                found,
                plannedFrom);
    }

    /** This plan as made from {@code facts} of its machine. */
    public NodePlan madeFrom(NodeFacts facts) {
        return new NodePlan(
                node,
                roles,
                packages,
                mungeKey,
                slurmKeys,
                storage,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                problems,
                Optional.of(facts));
    }

    /** Slurm's files' content by path, in the plan's order. */
    @JsonIgnore
    public Map<String, String> files() {
        return slurm.contents();
    }

    /** Whether a node is being taken back for the platform (the controller then watches for its last job to end). */
    public boolean reclaiming() {
        return nodeStates.values().stream().anyMatch(v -> v instanceof NodeWish.Drain d && d.reclaims());
    }

    public boolean runs(Role role) {
        return roles.contains(role);
    }

    /** A plan read from its JSON, whose format {@link NodePlanAsRead} checks. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static NodePlan fromJson(NodePlanAsRead read) {
        return read.plan();
    }

    /**
     * The format this plan is written in: {@link #FORMAT} where it carries slurm.jwks, else {@link
     * #SIZED_FORMAT} where an artifact has a size, else {@link #UNSIZED_FORMAT}.
     */
    @JsonProperty("format")
    int formatForJson() {
        if (slurmKeys.isPresent()) {
            return FORMAT;
        }
        return containers.artifacts().stream().anyMatch(a -> a.bytes() != null) ? SIZED_FORMAT : UNSIZED_FORMAT;
    }

    /** Slurm's own authentication keys as the plan's JSON carries them, to its own machine only; absent under munge. */
    @JsonProperty("slurm_jwks")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    SlurmAuthKeys slurmKeysForJson() {
        return slurmKeys.orElse(null);
    }

    /** The facts as the plan's JSON carries them; absent where the leader planned without them. */
    @JsonProperty("planned_from")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    NodeFacts plannedFromForJson() {
        return plannedFrom.orElse(null);
    }

    /** Which rotation made the plan's key; absent for the cluster's first key (and in older leaders' plans). */
    @JsonProperty("munge_rotation")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    Long mungeRotationForJson() {
        return mungeKey.filter(k -> k.rotation() > 0).map(MungeKey::rotation).orElse(null);
    }

    /**
     * When a machine holding another key switches to the plan's, together with every machine; absent
     * for the cluster's first key. An agent that does not know it switches when its plan comes.
     */
    @JsonProperty("munge_switch_at")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    String mungeSwitchAtForJson() {
        return mungeKey.flatMap(MungeKey::switchAt).map(Instant::toString).orElse(null);
    }

    /** The key as the plan's JSON carries it, to its own machine only; absent without a role. */
    @JsonProperty("munge_key")
    MungeKey mungeKeyForJson() {
        return mungeKey.orElse(null);
    }
}
