package io.slurmlet.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.model.facts.NodeFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One machine's changed facts taken into the leader's inventory of N machines, durable (fsync)
 * before the answer: as the leader keeps them now (a file a machine, {@code inventory/NODE}), and
 * as slurmlet 0.1 did (the whole inventory rewritten in one document), on the same disk in one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class InventoryBenchmark {

    @Param({"100", "1000", "10000"})
    int machines;

    Path dir;
    Inventory inventory;
    Document<Map<String, NodeFacts>> whole;
    Map<String, NodeFacts> all;
    int cpus = 1;

    private static NodeFacts machine(String name, int cpus) {
        return NodeFacts.builder(name)
                .address("10.0.%d.%d".formatted(name.hashCode() & 0xff, name.length()))
                .cpus(cpus)
                .sockets(2)
                .coresPerSocket(56)
                .threadsPerCore(2)
                .memoryMiB(2_063_000)
                .gpus(List.of(new NodeFacts.Gpus("NVIDIA H200", 8)))
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
    }

    @Setup(Level.Trial)
    public void fill() throws IOException {
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "slurmlet-inventory-bench-");
        FileStore store = FileStore.open(dir.resolve("state"));
        inventory = Inventory.open(store);
        all = new TreeMap<>();
        for (int i = 1; i <= machines; i++) {
            NodeFacts m = machine("gpu%05d".formatted(i), 224);
            inventory.report(m);
            all.put(m.name(), m);
        }
        whole = Document.in(FileStore.open(dir.resolve("old")), "inventory.json", new TypeReference<>() {});
        whole.write(all);
    }

    @TearDown(Level.Trial)
    public void remove() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Now: the machine's own file. */
    @Benchmark
    public boolean reportNow() throws IOException {
        return inventory.report(machine("gpu00001", ++cpus));
    }

    /** slurmlet 0.1: every machine's facts written again for one machine's change. */
    @Benchmark
    public Map<String, NodeFacts> reportAsBefore() throws IOException {
        all.put("gpu00001", machine("gpu00001", ++cpus));
        whole.write(all);
        return all;
    }
}
