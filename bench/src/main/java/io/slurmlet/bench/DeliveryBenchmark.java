package io.slurmlet.bench;

import io.slurmlet.agent.leader.plan.PlanBook;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The leader's own work when a setting changes every machine's plan (a line of slurm.conf), in a
 * cluster of N GPU machines, each agent's long poll waiting: the plans made again, published (each
 * changed plan's digest, the revisions), and every waiting poll's answer made into the bytes it
 * sends. What the network and the agents then do is not in it: bench/leader_load.py times that.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 4)
@Measurement(iterations = 4, time = 4)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx1g", "-XX:+UseSerialGC"})
public class DeliveryBenchmark {

    @Param({"1000", "10000"})
    int machines;

    Map<String, NodeFacts> facts;
    SlurmSettings settings;
    final MungeKey key = MungeKey.random();
    PlanBook book;
    int max = 10_000;
    final AtomicLong sent = new AtomicLong();

    /** A controller, "head", and {@code machines} GPU machines alike, by name. */
    static Map<String, NodeFacts> gpuCluster(int machines) {
        Map<String, NodeFacts> facts = new TreeMap<>();
        facts.put(
                "head",
                NodeFacts.builder("head")
                        .address("10.255.0.1")
                        .cpus(16)
                        .sockets(1)
                        .coresPerSocket(8)
                        .threadsPerCore(2)
                        .memoryMiB(64_000)
                        .os("debian 13")
                        .slurmVersion("24.11.5")
                        .build());
        for (int i = 1; i <= machines; i++) {
            NodeFacts gpu = RenderBenchmark.gpuMachine(i, "debian 13", "24.11.5");
            facts.put(gpu.name(), gpu);
        }
        return facts;
    }

    /** Slurm on every GPU machine of {@code facts}, half of them lent, head the controller. */
    static SlurmSettings settings(Map<String, NodeFacts> facts) {
        List<String> names = new ArrayList<>(facts.keySet());
        names.remove("head");
        return new SlurmSettings(
                true,
                "bench",
                "head",
                names,
                false,
                names.subList(0, names.size() / 2),
                "gpu",
                null,
                "",
                false,
                null,
                Map.of("MaxJobCount", "10000"));
    }

    @Setup(Level.Trial)
    public void cluster() {
        facts = gpuCluster(machines);
        settings = settings(facts);
        book = new PlanBook();
        book.publish(plans());
    }

    private Planner.Plans plans() {
        return Planner.plan(settings, facts, key, Planner.Lent.asWished(settings));
    }

    /** Every machine's poll waits again, answered as the agents' channel answers it: the published plan as JSON bytes. */
    @Setup(Level.Invocation)
    public void polls() {
        for (String node : book.waiting() > 0 ? List.<String>of() : facts.keySet()) {
            long held = book.get(node).orElseThrow().revision();
            book.whenNewer(node, held, answer -> sent.addAndGet(answer.json().length()));
        }
        max = max == 10_000 ? 10_001 : 10_000;
        settings = new SlurmSettings(
                true,
                "bench",
                "head",
                settings.nodes(),
                false,
                settings.lent(),
                "gpu",
                null,
                "",
                false,
                null,
                Map.of("MaxJobCount", Integer.toString(max)));
    }

    /** Planning alone: what every change costs before anything is sent. */
    @Benchmark
    public Planner.Plans plan() {
        return plans();
    }

    /** A change that reaches every machine: planned, published, every answer's bytes made. */
    @Benchmark
    public int change() {
        int changed = book.publish(plans());
        if (changed != facts.size()) {
            throw new IllegalStateException("expected every machine's plan to change, " + changed + " did");
        }
        return changed;
    }
}
