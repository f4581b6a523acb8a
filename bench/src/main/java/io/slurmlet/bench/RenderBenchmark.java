package io.slurmlet.bench;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.slurm.conf.RenderInput;
import io.slurmlet.agent.slurm.conf.Rendered;
import io.slurmlet.agent.slurm.conf.SlurmConfig;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rendering Slurm's four files for a cluster of N GPU nodes (half of them lent), for the newest
 * generator: what the leader does on every change of the settings or of a node's facts.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RenderBenchmark {

    @Param({"10", "1000", "10000"})
    int nodes;

    RenderInput input;

    @Setup
    public void cluster() {
        List<String> names = new ArrayList<>();
        Map<String, NodeFacts> facts = new HashMap<>();
        facts.put(
                "head",
                NodeFacts.builder("head")
                        .address("10.0.0.1")
                        .cpus(16)
                        .sockets(1)
                        .coresPerSocket(8)
                        .threadsPerCore(2)
                        .memoryMiB(64_000)
                        .os("debian 12")
                        .slurmVersion("26.05.5")
                        .build());
        for (int i = 1; i <= nodes; i++) {
            NodeFacts gpu = gpuMachine(i, "debian 12", "26.05.5");
            names.add(gpu.name());
            facts.put(gpu.name(), gpu);
        }
        SlurmSettings settings = new SlurmSettings(
                true, "bench", "head", names, false, names.subList(0, nodes / 2), "gpu", null, "slurmlet", false, null);
        input = new RenderInput(settings, facts, SlurmVersion.parse("26.05.5").orElseThrow());
        // What every machine is sent, for bench/README.md: machines alike share a NodeName line.
        Rendered r = SlurmConfig.render(input);
        System.out.printf(
                "%n%d nodes: slurm.conf %d bytes, %d NodeName lines; gres.conf %d bytes%n",
                nodes,
                r.files().get("slurm.conf").length(),
                r.files()
                        .get("slurm.conf")
                        .lines()
                        .filter(l -> l.startsWith("NodeName="))
                        .count(),
                r.files().get("gres.conf").length());
    }

    /** Machine {@code i} of a cluster of GPU machines alike: gpu00001, 224 CPUs, 8 × NVIDIA H200, 2 TB, in subnets of 256. */
    static NodeFacts gpuMachine(int i, String os, String slurm) {
        String name = "gpu%05d".formatted(i);
        return NodeFacts.builder(name)
                .address("10.%d.%d.%d".formatted(i / 65536, (i / 256) % 256, i % 256))
                .cpus(224)
                .sockets(2)
                .coresPerSocket(56)
                .threadsPerCore(2)
                .memoryMiB(2_063_000)
                .gpus(List.of(new NodeFacts.Gpus("NVIDIA H200", 8)))
                .os(os)
                .slurmVersion(slurm)
                .build();
    }

    @Benchmark
    public Rendered render() {
        return SlurmConfig.render(input);
    }
}
