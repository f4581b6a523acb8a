package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.HostList;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmConfKeys;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How a job that names no memory gets a fair share of the node it runs on, where the nodes'
 * memory per CPU differs. Slurm has no default per node, only per partition, applied in the
 * partition the job is tried in (FINDINGS.md, "Default memory per node"). So each class of nodes
 * (memory per CPU rounded down to a power of two) gets a hidden partition of its own, as
 * {@code batch_m8192}, with its smallest node's memory per CPU as {@code DefMemPerCPU} and a higher
 * {@code PriorityTier} than the settings' partition, and {@code JobSubmitPlugins=all_partitions}
 * submits every job that names no partition to all of them.
 *
 * <p>A class partition is never taken out of slurm.conf once slurmctld has it: every job submitted
 * since names it, and Slurm 22.05 and 24.11 fail every job, running or queued, that names a
 * partition slurm.conf no longer has (measured: FINDINGS.md). A class whose last node left stays,
 * empty; the leader keeps the list of classes it ever wrote ({@link RenderInput#memoryClasses()}).
 *
 * <p>A cluster whose nodes all fall in one class gets none of this: the cluster's
 * {@code DefMemPerCPU} (its smallest node's memory per CPU) is then within half of every node's share.
 * A site that sets {@code DefMemPerCPU}, {@code DefMemPerNode}, {@code DefMemPerGPU} or
 * {@code JobSubmitPlugins} itself decides the defaults: no new class is made for it, and classes made
 * before stay (without a default of their own where it sets one of the first three). So does a site
 * whose scheduling the classes would break: {@code SchedulerType} other than sched/backfill (only
 * the backfill scheduler starts a pinned job whose class is not first in its list),
 * {@code EnforcePartLimits=ALL} (it refuses a job that some partition of its list cannot run) or
 * {@code PreemptType=preempt/partition_prio} (the classes' higher tier would preempt the jobs of the
 * settings' partition).
 *
 * @param partitions class (MiB per CPU, a power of two) → its partition; empty when there is none
 * @param submitToAll whether slurm.conf loads {@code job_submit/all_partitions}
 */
public record MemoryClasses(SortedMap<Long, Partition> partitions, boolean submitToAll) {

    /** The keys with which a site's own slurm_conf sets the memory defaults itself. */
    static final List<String> MEMORY_KEYS = List.of("DefMemPerCPU", "DefMemPerNode", "DefMemPerGPU");

    /** The PriorityTier of the class partitions: above the settings' partition (1), so a job is tried in its class first. */
    static final int PRIORITY_TIER = 2;

    /**
     * One class partition.
     *
     * @param nodes        its nodes, in Slurm's order; none for a class whose last node left
     * @param defMemPerCpu its {@code DefMemPerCPU}, or 0 where the site decides the defaults
     */
    public record Partition(String name, List<String> nodes, long defMemPerCpu) {
        public Partition {
            nodes = List.copyOf(nodes);
        }
    }

    public MemoryClasses {
        partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
    }

    static final MemoryClasses NONE = new MemoryClasses(new TreeMap<>(), false);

    /** What Slurm may give jobs of {@code n}'s memory, per CPU, in MiB. */
    static long perCpu(NodeFacts n) {
        return Slurm2205.realMemory(n.memoryMiB()) / Math.max(1, n.cpus());
    }

    /** The class of {@code perCpu} MiB per CPU: the power of two at or below it. */
    static long classOf(long perCpu) {
        return Long.highestOneBit(Math.max(1, perCpu));
    }

    /** The name of class {@code mib}'s partition, for the settings' partition {@code partition}. */
    static String partitionName(String partition, long mib) {
        return partition + "_m" + mib;
    }

    /** Whether {@code name} is the settings' partition {@code partition} or one of its memory classes' partitions. */
    public static boolean isOrBelongsTo(String name, String partition) {
        return name.equals(partition)
                || name.startsWith(partition + "_m")
                        && name.substring(partition.length() + 2).matches("[0-9]{1,19}");
    }

    /**
     * The classes slurm.conf holds for {@code nodes}: every one of {@code kept}, which slurmctld had
     * before, and those the nodes make when they span two or more or classes were kept (so a node
     * of a new class, beside nodes of one, still gets its own share).
     */
    static MemoryClasses of(SlurmSettings s, List<NodeFacts> nodes, Set<Long> kept) {
        boolean siteMemory = MEMORY_KEYS.stream().anyMatch(k -> SlurmConfKeys.overrides(s.slurmConf(), k));
        boolean siteDecides = siteMemory
                || SlurmConfKeys.overrides(s.slurmConf(), "JobSubmitPlugins")
                || schedulingWithout(s.slurmConf());
        Map<Long, List<NodeFacts>> byClass = new TreeMap<>();
        for (NodeFacts n : nodes) {
            byClass.computeIfAbsent(classOf(perCpu(n)), c -> new ArrayList<>()).add(n);
        }
        Set<Long> classes = new TreeSet<>(kept);
        if (!siteDecides && (byClass.size() > 1 || !kept.isEmpty())) {
            classes.addAll(byClass.keySet());
        }
        if (classes.isEmpty()) {
            return NONE;
        }
        SortedMap<Long, Partition> partitions = new TreeMap<>();
        for (long c : classes) {
            List<NodeFacts> members = byClass.getOrDefault(c, List.of());
            long def = siteMemory
                    ? 0
                    : members.stream().mapToLong(MemoryClasses::perCpu).min().orElse(c);
            partitions.put(
                    c,
                    new Partition(
                            partitionName(s.partition(), c),
                            members.stream().map(NodeFacts::name).toList(),
                            def));
        }
        return new MemoryClasses(partitions, !siteDecides);
    }

    /**
     * What status says of the classes, as "a job that names no memory gets its node class's share of memory, by the
     * hidden partitions batch_m2048 (cpu1: 3895 MiB per CPU) and batch_m8192 (gpu[001-004]: 9136)";
     * empty without classes.
     */
    Optional<String> note() {
        if (partitions.isEmpty()) {
            return Optional.empty();
        }
        List<String> each = new ArrayList<>();
        for (Partition p : partitions.values()) {
            String nodes = p.nodes().isEmpty() ? "no node left, kept" : HostList.compress(p.nodes());
            each.add(
                    p.defMemPerCpu() > 0
                            ? "%s (%s: %d MiB per CPU)".formatted(p.name(), nodes, p.defMemPerCpu())
                            : "%s (%s)".formatted(p.name(), nodes));
        }
        String by = "the hidden partitions " + String.join(", ", each);
        return Optional.of(
                submitToAll
                        ? "a job that names no memory gets its node class's share of memory, by " + by
                        : "the site's slurm_conf sets the memory defaults; slurm.conf keeps " + by);
    }

    /** Whether the site's own lines schedule in a way the class partitions would break (see the class comment). */
    private static boolean schedulingWithout(Map<String, String> site) {
        return site.entrySet().stream().anyMatch(e -> {
            String key = e.getKey().toLowerCase(Locale.ROOT);
            String value = e.getValue().strip().toLowerCase(Locale.ROOT);
            return key.equals("schedulertype") && !value.equals("sched/backfill")
                    || key.equals("enforcepartlimits") && value.equals("all")
                    || key.equals("preempttype") && value.contains("partition_prio");
        });
    }

    /** The partitions' lines, in class order, each as slurm.conf's words. */
    List<Object[]> lines() {
        List<Object[]> lines = new ArrayList<>();
        for (Partition p : partitions.values()) {
            List<Object> line = new ArrayList<>(List.of("PartitionName", p.name()));
            if (!p.nodes().isEmpty()) {
                line.addAll(List.of("Nodes", HostList.compress(p.nodes())));
            }
            line.addAll(List.of("Hidden", "YES", "PriorityTier", PRIORITY_TIER));
            if (p.defMemPerCpu() > 0) {
                line.addAll(List.of("DefMemPerCPU", p.defMemPerCpu()));
            }
            line.addAll(List.of("MaxTime", "INFINITE", "State", "UP"));
            lines.add(line.toArray());
        }
        return lines;
    }
}
