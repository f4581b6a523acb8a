package io.slurmlet.model.facts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Locale;

/**
 * What an agent reports about its machine: what Slurm's NodeName line is made from.
 *
 * @param name           the node's name in the Slurm cluster (its host name unless configured)
 * @param address        the address the other machines reach it at; empty: its name resolves
 * @param cpus           logical CPUs, as {@code slurmd -C} counts them
 * @param boards         baseboards (almost always 1)
 * @param sockets        sockets per board, as {@code slurmd -C}'s SocketsPerBoard
 * @param coresPerSocket cores per socket
 * @param threadsPerCore hardware threads per core
 * @param memoryMiB      physical memory in MiB, as {@code slurmd -C}'s RealMemory
 * @param gpus           the GPUs, one entry per model; empty: none
 * @param os             the operating system, as {@code debian 12}; empty: not reported
 * @param slurmVersion   the installed Slurm version, as {@code 22.05.8}; empty: Slurm not installed
 * @param slurmctldState the protocol version slurmctld's saved state on this machine was written with
 *                       (Slurm's release × 256, as the state holds it: 9728 is 22.05); 0: no saved state
 * @param slurmctldCandidate where there is saved state, the slurmctld version the package manager would
 *                       install on an upgrade, as {@code 24.11.5}; empty: none newer, or not known. Both
 *                       are left out of the JSON when they say nothing, so that a leader older than
 *                       them (which refuses keys it does not know) still takes every other machine's facts.
 * @param slurmPlugins   the Slurm plugins installed here, as their files are named without {@code .so}
 *                       ({@code switch_nvidia_imex}, {@code sched_backfill}), sorted, reported where slurmctld
 *                       is installed; empty: none found, no slurmctld, or not reported. The controller's are
 *                       what a site's plugin names are checked against.
 *                       Left out of the JSON when empty, as the two above.
 * @param containers     what the machine has for jobs in containers (enroot, pyxis); null: nothing,
 *                       and left out of the JSON, as the three above
 */
public record NodeFacts(
        @JsonProperty("name") String name,
        @JsonProperty("address") String address,
        @JsonProperty("cpus") int cpus,
        @JsonProperty("boards") int boards,
        @JsonProperty("sockets") int sockets,
        @JsonProperty("cores_per_socket") int coresPerSocket,
        @JsonProperty("threads_per_core") int threadsPerCore,
        @JsonProperty("memory_mib") long memoryMiB,
        @JsonProperty("gpus") List<Gpus> gpus,
        @JsonProperty("os") String os,
        @JsonProperty("slurm_version") String slurmVersion,

        @JsonProperty("slurmctld_state") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        int slurmctldState,

        @JsonProperty("slurmctld_candidate") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String slurmctldCandidate,

        @JsonProperty("slurm_plugins") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        List<String> slurmPlugins,

        @JsonProperty("containers") @JsonInclude(JsonInclude.Include.NON_NULL)
        ContainerFacts containers) {

    /** Facts of the machine {@code name}, each field named as it is set; what is not set says nothing (one board). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder that starts from these facts, every field kept. */
    public Builder toBuilder() {
        return new Builder(name)
                .address(address)
                .cpus(cpus)
                .boards(boards)
                .sockets(sockets)
                .coresPerSocket(coresPerSocket)
                .threadsPerCore(threadsPerCore)
                .memoryMiB(memoryMiB)
                .gpus(gpus)
                .os(os)
                .slurmVersion(slurmVersion)
                .slurmctldState(slurmctldState)
                .slurmctldCandidate(slurmctldCandidate)
                .slurmPlugins(slurmPlugins)
                .containers(containers);
    }

    /** These facts, every field kept, under the name {@code node}. */
    public NodeFacts withName(String node) {
        return toBuilder().name(node).build();
    }

    /** These facts with {@code protocol} as the saved state's version. */
    public NodeFacts withSlurmctldState(int protocol) {
        return toBuilder().slurmctldState(protocol).build();
    }

    /** These facts with {@code version} as the slurmctld an upgrade would install. */
    public NodeFacts withSlurmctldCandidate(String version) {
        return toBuilder().slurmctldCandidate(version).build();
    }

    /** These facts with {@code plugins} as the Slurm plugins installed. */
    public NodeFacts withSlurmPlugins(List<String> plugins) {
        return toBuilder().slurmPlugins(plugins).build();
    }

    /** These facts with {@code tools} as what the machine has for containers (null: nothing). */
    public NodeFacts withContainers(ContainerFacts tools) {
        return toBuilder().containers(tools).build();
    }

    /** What the machine has for containers: nothing where it reported none. */
    public ContainerFacts containerTools() {
        return containers == null ? ContainerFacts.NONE : containers;
    }

    public NodeFacts {
        address = address == null ? "" : address;
        boards = boards <= 0 ? 1 : boards;
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        os = os == null ? "" : os;
        slurmVersion = slurmVersion == null ? "" : slurmVersion;
        slurmctldCandidate = slurmctldCandidate == null ? "" : slurmctldCandidate;
        // A null in the JSON's list becomes "", which FactsCheck refuses with the key named.
        slurmPlugins = slurmPlugins == null
                ? List.of()
                : slurmPlugins.stream().map(p -> p == null ? "" : p).toList();
        // Nothing for containers is said by leaving the key out: facts that say it either way are equal.
        containers = ContainerFacts.NONE.equals(containers) ? null : containers;
    }

    /** The number of GPUs of every model (facts that passed {@link FactsCheck} cannot overflow it). */
    public int gpuCount() {
        return gpus.stream().mapToInt(Gpus::count).sum();
    }

    /**
     * GPUs of one model on a node.
     *
     * @param model the model as the driver names it, as {@code NVIDIA H100 80GB HBM3}
     * @param count how many
     */
    public record Gpus(
            @JsonProperty("model") String model,
            @JsonProperty("count") int count) {

        public Gpus {
            model = model == null ? "" : model;
        }

        /**
         * The model as Slurm names the type when it detects it: lower case, spaces as underscores
         * ({@code NVIDIA H100 80GB HBM3} → {@code nvidia_h100_80gb_hbm3}), so a configured type and
         * a detected one agree.
         */
        public String slurmType() {
            return model.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]+", "_");
        }
    }

    /** {@link NodeFacts} field by field: each setter is the record's component of that name. */
    public static final class Builder {
        private String name;
        private String address = "";
        private int cpus;
        private int boards = 1;
        private int sockets;
        private int coresPerSocket;
        private int threadsPerCore;
        private long memoryMiB;
        private List<Gpus> gpus = List.of();
        private String os = "";
        private String slurmVersion = "";
        private int slurmctldState;
        private String slurmctldCandidate = "";
        private List<String> slurmPlugins = List.of();
        private ContainerFacts containers;

        private Builder(String name) {
            this.name = name;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder address(String address) {
            this.address = address;
            return this;
        }

        public Builder cpus(int cpus) {
            this.cpus = cpus;
            return this;
        }

        public Builder boards(int boards) {
            this.boards = boards;
            return this;
        }

        public Builder sockets(int sockets) {
            this.sockets = sockets;
            return this;
        }

        public Builder coresPerSocket(int coresPerSocket) {
            this.coresPerSocket = coresPerSocket;
            return this;
        }

        public Builder threadsPerCore(int threadsPerCore) {
            this.threadsPerCore = threadsPerCore;
            return this;
        }

        public Builder memoryMiB(long memoryMiB) {
            this.memoryMiB = memoryMiB;
            return this;
        }

        public Builder gpus(List<Gpus> gpus) {
            this.gpus = gpus;
            return this;
        }

        public Builder os(String os) {
            this.os = os;
            return this;
        }

        public Builder slurmVersion(String slurmVersion) {
            this.slurmVersion = slurmVersion;
            return this;
        }

        public Builder slurmctldState(int slurmctldState) {
            this.slurmctldState = slurmctldState;
            return this;
        }

        public Builder slurmctldCandidate(String slurmctldCandidate) {
            this.slurmctldCandidate = slurmctldCandidate;
            return this;
        }

        public Builder slurmPlugins(List<String> slurmPlugins) {
            this.slurmPlugins = slurmPlugins;
            return this;
        }

        public Builder containers(ContainerFacts containers) {
            this.containers = containers;
            return this;
        }

        public NodeFacts build() {
            return new NodeFacts(
                    name,
                    address,
                    cpus,
                    boards,
                    sockets,
                    coresPerSocket,
                    threadsPerCore,
                    memoryMiB,
                    gpus,
                    os,
                    slurmVersion,
                    slurmctldState,
                    slurmctldCandidate,
                    slurmPlugins,
                    containers);
        }
    }
}
