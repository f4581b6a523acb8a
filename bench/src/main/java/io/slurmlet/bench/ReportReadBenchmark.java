package io.slurmlet.bench;

import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One machine's status report read by the leader's agents' channel, as each of 10,000 machines
 * puts one after a change: straight into its type ({@link SettingsJson#read}, now), and as a tree
 * then converted (before), in one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReportReadBenchmark {

    /** What bench/leader_load.py's agents put: a pass of the nine steps that changed nothing. */
    final byte[] report = ("{\"node\": \"g00042\", \"plan_revision\": 12345, \"steps\": ["
                    + String.join(
                            ", ",
                            java.util.stream.Stream.of(
                                            "facts",
                                            "packages",
                                            "munge",
                                            "storage",
                                            "users",
                                            "slurm",
                                            "pam",
                                            "containers",
                                            "nodestates")
                                    .map(s ->
                                            ("{\"step\": \"%s\", \"state\": \"unchanged\", \"detail\": \"nothing to change\","
                                                            + " \"at\": \"2026-12-05T23:00:00Z\", \"last_error\": \"\", \"last_error_at\": \"\"}")
                                                    .formatted(s))
                                    .toList())
                    + "], \"slurm_nodes\": [], \"observed\": {\"munge\": null, \"storage\": null, \"pam\": null, \"jobs\": []}}")
            .getBytes(StandardCharsets.UTF_8);

    @Benchmark
    public NodeReport straight() {
        return SettingsJson.read(report, NodeReport.class);
    }

    @Benchmark
    public NodeReport throughATree() {
        return SettingsJson.toValue(SettingsJson.readObject(report), NodeReport.class);
    }
}
