package io.slurmlet.agent.slurm.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A job that names no memory gets its node class's share: the class partitions slurm.conf holds. */
class MemoryClassesTest {

    /** 64 CPUs and 4 GiB (the node that made every job's default 56 MB), and two 2-CPU nodes of 24 GiB. */
    private static final Map<String, NodeFacts> MIXED = Map.of(
            "ctl", node("ctl", 2, 24_105),
            "small", node("small", 64, 4_096),
            "big1", node("big1", 2, 24_105),
            "big2", node("big2", 2, 24_105));

    private static NodeFacts node(String name, int cpus, long mib) {
        return NodeFacts.builder(name)
                .cpus(cpus)
                .sockets(1)
                .coresPerSocket(cpus)
                .threadsPerCore(1)
                .memoryMiB(mib)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
    }

    private static SlurmSettings settings(List<String> nodes, Map<String, String> site) {
        return new SlurmSettings(
                true,
                "lab",
                "ctl",
                nodes,
                false,
                nodes,
                "batch",
                null,
                "slurmlet",
                false,
                new Experimental(false),
                site);
    }

    private static Rendered render(SlurmSettings s, Map<String, NodeFacts> facts, Set<Long> kept, String version) {
        Rendered r = SlurmConfig.render(
                new RenderInput(s, facts, SlurmVersion.parse(version).orElseThrow(), Layout.DEBIAN, kept));
        assertTrue(r.ok(), r.problems().toString());
        return r;
    }

    private static List<String> lines(Rendered r, String prefix) {
        return r.files()
                .get("slurm.conf")
                .lines()
                .filter(l -> l.startsWith(prefix))
                .toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "24.11.5", "25.11.1", "26.05.5"})
    void nodesOfDifferentMemoryPerCpuEachGetTheirClasssDefaultThroughAHiddenPartition(String version) {
        Rendered r = render(settings(List.of("small", "big1", "big2"), Map.of()), MIXED, Set.of(), version);
        // small: 4096 - 512 MiB over 64 CPUs = 56; big: 24105 - 1205 over 2 = 11450.
        assertEquals(
                List.of("DefMemPerCPU=56"),
                lines(r, "DefMemPerCPU"),
                "the settings' partition keeps the smallest share");
        assertEquals(List.of("JobSubmitPlugins=all_partitions"), lines(r, "JobSubmitPlugins"));
        assertEquals(
                List.of(
                        "PartitionName=batch Nodes=big[1-2],small Default=YES MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m32 Nodes=small Hidden=YES PriorityTier=2 DefMemPerCPU=56 MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m8192 Nodes=big[1-2] Hidden=YES PriorityTier=2 DefMemPerCPU=11450 MaxTime=INFINITE State=UP"),
                lines(r, "PartitionName"));
        assertEquals(Set.of(32L, 8192L), r.memoryClasses(), "the leader is told the classes, to keep them");
        assertEquals(
                List.of(
                        "a job that names no memory gets its node class's share of memory, by the hidden partitions batch_m32 (small: 56 MiB "
                                + "per CPU), batch_m8192 (big[1-2]: 11450 MiB per CPU)"),
                r.notes(),
                "and status says so");
    }

    @Test
    void nodesOfOneClassGetNoneOfItAndTheClustersDefaultOnly() {
        Rendered r = render(settings(List.of("big1", "big2"), Map.of()), MIXED, Set.of(), "24.11.5");
        assertEquals(List.of("DefMemPerCPU=11450"), lines(r, "DefMemPerCPU"));
        assertEquals(List.of(), lines(r, "JobSubmitPlugins"));
        assertEquals(1, lines(r, "PartitionName").size());
        assertEquals(Set.of(), r.memoryClasses());
        assertEquals(List.of(), r.notes());
    }

    @Test
    void aClassWhoseLastNodeLeftStaysEmptySinceSlurmFailsEveryJobThatNamesAPartitionItLoses() {
        Rendered r = render(settings(List.of("big1", "big2"), Map.of()), MIXED, Set.of(32L, 8192L), "22.05.8");
        assertEquals(
                List.of(
                        "PartitionName=batch Nodes=big[1-2] Default=YES MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m32 Hidden=YES PriorityTier=2 DefMemPerCPU=32 MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m8192 Nodes=big[1-2] Hidden=YES PriorityTier=2 DefMemPerCPU=11450 MaxTime=INFINITE State=UP"),
                lines(r, "PartitionName"));
        assertEquals(
                List.of("JobSubmitPlugins=all_partitions"),
                lines(r, "JobSubmitPlugins"),
                "jobs still go to every class");
        assertEquals(Set.of(32L, 8192L), r.memoryClasses());
        assertTrue(
                r.notes().get(0).contains("batch_m32 (no node left, kept: 32 MiB per CPU)"),
                r.notes().toString());

        Rendered replaced = render(settings(List.of("big1", "big2"), Map.of()), MIXED, Set.of(32L, 1024L), "24.11.5");
        assertEquals(
                List.of(
                        "PartitionName=batch_m32 Hidden=YES PriorityTier=2 DefMemPerCPU=32 MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m1024 Hidden=YES PriorityTier=2 DefMemPerCPU=1024 MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m8192 Nodes=big[1-2] Hidden=YES PriorityTier=2 DefMemPerCPU=11450 MaxTime=INFINITE State=UP"),
                lines(replaced, "PartitionName=batch_m"),
                "nodes of one class where classes were kept still get theirs");

        Rendered none = render(settings(List.of(), Map.of()), Map.of("ctl", MIXED.get("ctl")), Set.of(32L), "24.11.5");
        assertEquals(
                List.of(
                        "PartitionName=batch Default=YES MaxTime=INFINITE State=UP",
                        "PartitionName=batch_m32 Hidden=YES PriorityTier=2 DefMemPerCPU=32 MaxTime=INFINITE State=UP"),
                lines(none, "PartitionName"),
                "with no node at all, too");
    }

    @Test
    void aSiteThatSetsTheDefaultsItselfGetsNoNewClassAndTheKeptOnesLoseTheirDefault() {
        for (String key : List.of("DefMemPerCPU", "defmempernode", "DefMemPerGPU", "JobSubmitPlugins")) {
            String value = key.equals("JobSubmitPlugins") ? "lua" : "2048";
            Rendered fresh = render(settings(List.of("small", "big1"), Map.of(key, value)), MIXED, Set.of(), "24.11.5");
            assertEquals(1, lines(fresh, "PartitionName").size(), key + ": no class is made");
            assertEquals(List.of(), lines(fresh, "JobSubmitPlugins=all"), key);

            Rendered kept =
                    render(settings(List.of("small", "big1"), Map.of(key, value)), MIXED, Set.of(32L), "24.11.5");
            String line = lines(kept, "PartitionName=batch_m32").get(0);
            assertEquals(key.equals("JobSubmitPlugins"), line.contains("DefMemPerCPU=56"), key + ": " + line);
            assertFalse(kept.files().get("slurm.conf").contains("JobSubmitPlugins=all_partitions"), key);
            assertTrue(
                    kept.notes()
                            .get(0)
                            .startsWith("the site's slurm_conf sets the memory defaults; slurm.conf keeps the hidden "
                                    + "partitions batch_m32 (small"),
                    kept.notes().toString());
        }
    }

    @Test
    void aSiteWhoseSchedulingTheClassesWouldBreakGetsNoNewClass() {
        for (Map<String, String> site : List.of(
                Map.of("SchedulerType", "sched/builtin"),
                Map.of("EnforcePartLimits", "ALL"),
                Map.of("PreemptType", "preempt/partition_prio"))) {
            Rendered r = render(settings(List.of("small", "big1"), site), MIXED, Set.of(), "24.11.5");
            assertEquals(1, lines(r, "PartitionName").size(), site + ": no class is made");
        }
        Rendered backfill = render(
                settings(
                        List.of("small", "big1"),
                        Map.of(
                                "SchedulerType",
                                "sched/backfill",
                                "EnforcePartLimits",
                                "ANY",
                                "PreemptType",
                                "preempt/qos")),
                MIXED,
                Set.of(),
                "24.11.5");
        assertEquals(
                3, lines(backfill, "PartitionName").size(), "backfill, ANY and preemption by QOS keep the classes");
    }

    @Test
    void aJobsPartitionIsTheSettingsOneOrAClassOfIt() {
        assertTrue(MemoryClasses.isOrBelongsTo("batch", "batch"));
        assertTrue(MemoryClasses.isOrBelongsTo("batch_m8192", "batch"));
        assertFalse(MemoryClasses.isOrBelongsTo("batch_mx", "batch"));
        assertFalse(MemoryClasses.isOrBelongsTo("batch2", "batch"));
        assertFalse(MemoryClasses.isOrBelongsTo("gpu_m8192", "batch"));
    }

    @Test
    void theClassIsThePowerOfTwoAtOrBelowTheShare() {
        assertEquals(
                Map.of(1L, 1L, 56L, 32L, 1024L, 1024L, 11450L, 8192L),
                new TreeMap<>(Map.of(
                        1L,
                        MemoryClasses.classOf(1),
                        56L,
                        MemoryClasses.classOf(56),
                        1024L,
                        MemoryClasses.classOf(1024),
                        11450L,
                        MemoryClasses.classOf(11450))));
        assertEquals(1L, MemoryClasses.classOf(0), "a node reporting no memory is in the smallest class");
    }
}
