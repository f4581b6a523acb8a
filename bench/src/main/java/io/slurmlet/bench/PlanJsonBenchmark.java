package io.slurmlet.bench;

import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.ManagedFile;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JSON of every machine's plan after a change, as the leader makes it for the answers: each
 * file's text escaped once for all the plans that carry it ({@code shared}, ManagedFile's own
 * serializer) against escaped again for every plan ({@code escapedEachTime}, Jackson's record
 * serializer, as before). Both give the same bytes (checked at setup).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx1g", "-XX:+UseSerialGC"})
public class PlanJsonBenchmark {

    @Param({"10000"})
    int machines;

    List<NodePlan> plans;
    ObjectMapper escaped;

    /** ManagedFile written by Jackson's record serializer: its text escaped for each plan. */
    @JsonSerialize(using = JsonSerializer.None.class)
    abstract static class EscapedEachTime {}

    @Setup(Level.Trial)
    public void cluster() throws Exception {
        Map<String, NodeFacts> facts = DeliveryBenchmark.gpuCluster(machines);
        SlurmSettings settings = DeliveryBenchmark.settings(facts);
        plans = new ArrayList<>(Planner.plan(settings, facts, MungeKey.random(), Planner.Lent.asWished(settings))
                .nodes()
                .values());
        escaped = SettingsJson.STRICT.copy().addMixIn(ManagedFile.class, EscapedEachTime.class);
        NodePlan one = plans.get(plans.size() - 1);
        if (!Arrays.equals(SettingsJson.STRICT.writeValueAsBytes(one), escaped.writeValueAsBytes(one))) {
            throw new IllegalStateException("the two ways give different JSON");
        }
    }

    @Benchmark
    public long shared() throws Exception {
        return bytes(SettingsJson.STRICT);
    }

    @Benchmark
    public long escapedEachTime() throws Exception {
        return bytes(escaped);
    }

    private long bytes(ObjectMapper mapper) throws Exception {
        long n = 0;
        for (NodePlan p : plans) {
            n += mapper.writeValueAsBytes(p).length;
        }
        return n;
    }
}
