package io.slurmlet.model.settings;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Slurm cluster run beside the site's platform on some of its machines, for training and other
 * batch work the platform does not schedule. The leader tells each named node's agent what to run;
 * the agents install it from the machine's package sources and keep it going.
 *
 * <p>Values are never null: a missing string is empty, a missing list is empty, and
 * {@code cluster_name} and {@code partition} take their defaults when empty.
 *
 * @param enabled      runs Slurm on the nodes below. False: slurmlet stops keeping it; what was
 *                     installed stays installed, and every node is the platform's.
 * @param clusterName  Slurm's ClusterName. Empty is {@value #DEFAULT_CLUSTER_NAME}.
 * @param controller   the node whose agent runs slurmctld. It needs no GPU and need not be one of
 *                     {@code nodes}. Empty: none yet, which only disabled settings may have.
 * @param nodes        the nodes that run slurmd. Each stays the platform's, drained in Slurm, until it
 *                     is also in {@code lent}. Empty: none, unless {@code all_nodes}.
 * @param allNodes     runs slurmd on every node that has an agent, those that join later too, besides
 *                     any named in {@code nodes}. Each is the platform's until it is lent, as any.
 * @param lent         the nodes of {@code nodes} that Slurm may run jobs on now. A node put here is
 *                     drained of the platform's work first and resumed in Slurm once none is left; a
 *                     node taken out is drained in Slurm and given back to the platform when its last
 *                     job ends. Empty: every node is the platform's.
 * @param partition    the one partition every node is in. Empty is {@value #DEFAULT_PARTITION}.
 * @param shared       the file system every machine of the Slurm cluster sees at the same path.
 *                     Empty path: none, and a batch job's output stays on the node it ran on.
 * @param users        who keeps the Linux users that run jobs, the same on every machine:
 *                     {@value #USERS_SLURMLET} makes one for each slurmlet account (a UID from 200000
 *                     up, its SSH keys), let in to the controller, and to a node only while a job of
 *                     theirs runs there (pam_slurm_adopt). Empty leaves users to the site (a
 *                     directory through sssd, or by hand).
 * @param containers   lets jobs run in containers ({@code srun --container-image …}: pyxis with enroot
 *                     under it, the GPUs and the shared path inside). The agents install both on every
 *                     Slurm machine; jobs take it once every machine has them. False: not installed.
 * @param experimental Slurm features SchedMD calls experimental, each off unless asked for.
 * @param slurmConf    slurm.conf lines of the site's own that no setting covers, KEY → VALUE (as
 *                     {@code MaxJobCount} → {@code 50000}), written at the end of slurm.conf in key
 *                     order. Keys slurmlet writes itself are refused, naming the setting that covers
 *                     them. Empty: none.
 * @param auth         how Slurm's daemons and commands prove who they are: {@value #AUTH_MUNGE} (munged
 *                     and the cluster's munge key) or {@value #AUTH_SLURM} (Slurm's own auth/slurm and
 *                     cred/slurm, Slurm 24.05 and later, with the keys slurmlet gives every Slurm
 *                     machine in /etc/slurm/slurm.jwks). Empty is munge. Switched only while no job
 *                     runs or waits: Slurm does not support a change of AuthType under jobs.
 */
@JsonPropertyOrder({
    "enabled",
    "cluster_name",
    "controller",
    "nodes",
    "all_nodes",
    "lent",
    "partition",
    "shared",
    "users",
    "containers",
    "experimental",
    "slurm_conf",
    "auth"
})
public record SlurmSettings(
        @JsonProperty("enabled") boolean enabled,
        @JsonProperty("cluster_name") String clusterName,
        @JsonProperty("controller") String controller,
        @JsonProperty("nodes") List<String> nodes,
        @JsonProperty("all_nodes") boolean allNodes,
        @JsonProperty("lent") List<String> lent,
        @JsonProperty("partition") String partition,
        @JsonProperty("shared") SharedStorage shared,
        @JsonProperty("users") String users,
        @JsonProperty("containers") boolean containers,
        @JsonProperty("experimental") Experimental experimental,
        @JsonProperty("slurm_conf") Map<String, String> slurmConf,

        @JsonProperty("auth") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String auth) {

    public static final String DEFAULT_CLUSTER_NAME = "slurmlet";
    public static final String DEFAULT_PARTITION = "gpu";
    /** {@code users} value that has slurmlet make the Slurm cluster's users from its accounts. */
    public static final String USERS_SLURMLET = "slurmlet";
    /** {@code auth}: munged and the munge key (the default, stored as empty). */
    public static final String AUTH_MUNGE = "munge";
    /** {@code auth}: Slurm's own auth/slurm and cred/slurm, with slurm.jwks. */
    public static final String AUTH_SLURM = "slurm";

    /** Settings of a fresh leader: Slurm off, nothing named. */
    public static final SlurmSettings DEFAULTS =
            new SlurmSettings(false, null, null, null, false, null, null, null, null, false, null, null);

    /** Settings on munge. */
    public SlurmSettings(
            boolean enabled,
            String clusterName,
            String controller,
            List<String> nodes,
            boolean allNodes,
            List<String> lent,
            String partition,
            SharedStorage shared,
            String users,
            boolean containers,
            Experimental experimental,
            Map<String, String> slurmConf) {
        this(
                enabled,
                clusterName,
                controller,
                nodes,
                allNodes,
                lent,
                partition,
                shared,
                users,
                containers,
                experimental,
                slurmConf,
                null);
    }

    /** Settings on munge, without site additions to slurm.conf. */
    public SlurmSettings(
            boolean enabled,
            String clusterName,
            String controller,
            List<String> nodes,
            boolean allNodes,
            List<String> lent,
            String partition,
            SharedStorage shared,
            String users,
            boolean containers,
            Experimental experimental) {
        this(
                enabled,
                clusterName,
                controller,
                nodes,
                allNodes,
                lent,
                partition,
                shared,
                users,
                containers,
                experimental,
                null);
    }

    public SlurmSettings {
        clusterName = clusterName == null || clusterName.isEmpty() ? DEFAULT_CLUSTER_NAME : clusterName;
        controller = controller == null ? "" : controller;
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        lent = lent == null ? List.of() : List.copyOf(lent);
        partition = partition == null || partition.isEmpty() ? DEFAULT_PARTITION : partition;
        shared = shared == null ? SharedStorage.NONE : shared;
        users = users == null ? "" : users;
        experimental = experimental == null ? Experimental.NONE : experimental;
        slurmConf = slurmConf == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(slurmConf));
        // munge is the default, kept as none: settings that never named it stay byte for byte what they were.
        auth = auth == null || auth.equals(AUTH_MUNGE) ? "" : auth;
    }

    /**
     * Everything wrong with these settings, every problem and not only the first, each naming the
     * key, the value and the fix. Empty when Slurm could run on them.
     */
    public List<Problem> check() {
        return new SettingsCheck(this).problems();
    }

    /** Why {@code name} cannot name a node (reported under {@code key}); empty when it can. */
    public static Optional<Problem> nodeNameProblem(String key, String name) {
        return SettingsCheck.nodeName(key, name);
    }

    /** Whether Slurm may use the node now: enabled, one of the nodes, and lent. */
    public boolean isLent(String node) {
        return enabled && (allNodes || nodes.contains(node)) && lent.contains(node);
    }

    /**
     * The nodes Slurm may use now, each as {@link #isLent} judges it, in the order of {@code lent}:
     * for callers that ask of many nodes, one pass instead of a list search per node.
     */
    public Set<String> lentNodes() {
        if (!enabled) {
            return Set.of();
        }
        Set<String> named = allNodes ? null : Set.copyOf(nodes);
        Set<String> lentNow = new LinkedHashSet<>();
        for (String node : lent) {
            if (named == null || named.contains(node)) {
                lentNow.add(node);
            }
        }
        return lentNow;
    }

    /** Whether Slurm authenticates with its own auth/slurm and slurm.jwks, not munge. */
    @JsonIgnore
    public boolean slurmAuth() {
        return AUTH_SLURM.equals(auth);
    }

    /** {@code auth} as an admin reads it: {@value #AUTH_MUNGE} where empty. */
    @JsonIgnore
    public String authShown() {
        return auth.isEmpty() ? AUTH_MUNGE : auth;
    }

    /** Whether slurmlet makes the Linux users from its accounts. */
    @JsonIgnore
    public boolean makesUsers() {
        return USERS_SLURMLET.equals(users);
    }

    /**
     * The settings with every node of {@code ids} in {@code nodes} when {@code all_nodes} is on: the
     * nodes that run slurmd, as the leader's inventory has them. Unchanged otherwise.
     */
    public SlurmSettings withNodes(List<String> ids) {
        if (!allNodes) {
            return this;
        }
        Set<String> all = new LinkedHashSet<>(nodes);
        all.addAll(ids);
        return all.size() == nodes.size() ? this : withNodeList(List.copyOf(all));
    }

    /** A copy with {@code lent} replaced. */
    public SlurmSettings withLent(List<String> newLent) {
        return new SlurmSettings(
                enabled,
                clusterName,
                controller,
                nodes,
                allNodes,
                newLent,
                partition,
                shared,
                users,
                containers,
                experimental,
                slurmConf,
                auth);
    }

    /** A copy with {@code enabled} replaced. */
    public SlurmSettings withEnabled(boolean on) {
        return new SlurmSettings(
                on,
                clusterName,
                controller,
                nodes,
                allNodes,
                lent,
                partition,
                shared,
                users,
                containers,
                experimental,
                slurmConf,
                auth);
    }

    /** A copy with {@code auth} replaced. */
    public SlurmSettings withAuth(String newAuth) {
        return new SlurmSettings(
                enabled,
                clusterName,
                controller,
                nodes,
                allNodes,
                lent,
                partition,
                shared,
                users,
                containers,
                experimental,
                slurmConf,
                newAuth);
    }

    /** A copy with {@code nodes} replaced. */
    public SlurmSettings withNodeList(List<String> newNodes) {
        return new SlurmSettings(
                enabled,
                clusterName,
                controller,
                newNodes,
                allNodes,
                lent,
                partition,
                shared,
                users,
                containers,
                experimental,
                slurmConf,
                auth);
    }
}
