package io.slurmlet.agent.slurm.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The files each generator writes for one example cluster, kept in src/test/resources/golden/RELEASE/
 * for reviewers to read: a change to what slurmlet writes shows up there as a diff.
 * {@code ./mvnw test -pl agent -Dtest=GoldenFilesTest -Dslurmlet.golden.update=true} rewrites them.
 */
class GoldenFilesTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    /** A controller without GPUs, four GPU nodes (two lent), one CPU node; slurmlet makes the users. */
    static RenderInput example(String version) {
        SlurmVersion v = SlurmVersion.parse(version).orElseThrow();
        boolean async = v.atLeast(25, 11);
        SlurmSettings settings = new SlurmSettings(
                true,
                "lab",
                "head",
                List.of("gpu001", "gpu002", "gpu003", "gpu004", "cpu1"),
                false,
                List.of("gpu001", "gpu002", "cpu1"),
                "batch",
                null,
                "slurmlet",
                false,
                new Experimental(async));
        Map<String, NodeFacts> facts = new java.util.HashMap<>();
        facts.put(
                "head",
                NodeFacts.builder("head")
                        .address("10.40.0.10")
                        .cpus(16)
                        .sockets(1)
                        .coresPerSocket(8)
                        .threadsPerCore(2)
                        .memoryMiB(64_000)
                        .os("debian 12")
                        .slurmVersion(version)
                        .build());
        for (String g : List.of("gpu001", "gpu002", "gpu003", "gpu004")) {
            facts.put(
                    g,
                    NodeFacts.builder(g)
                            .cpus(224)
                            .sockets(2)
                            .coresPerSocket(56)
                            .threadsPerCore(2)
                            .memoryMiB(2_063_000)
                            .gpus(List.of(new NodeFacts.Gpus("NVIDIA H200", 8)))
                            .os("debian 12")
                            .slurmVersion(version)
                            .build());
        }
        facts.put(
                "cpu1",
                NodeFacts.builder("cpu1")
                        .address("10.40.1.1")
                        .cpus(128)
                        .sockets(2)
                        .coresPerSocket(64)
                        .threadsPerCore(1)
                        .memoryMiB(515_000)
                        .os("debian 12")
                        .slurmVersion(version)
                        .build());
        return new RenderInput(settings, facts, v);
    }

    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "23.11.10", "24.11.5", "25.05.3", "26.05.5"})
    void filesMatchTheGoldenOnes(String version) throws IOException {
        Rendered r = SlurmConfig.render(example(version));
        assertTrue(r.ok(), r.problems().toString());
        Path dir = GOLDEN.resolve(version.substring(0, 5));
        for (var file : r.files().entrySet()) {
            Path golden = dir.resolve(file.getKey());
            if (Boolean.getBoolean("slurmlet.golden.update")) {
                Files.createDirectories(dir);
                Files.writeString(golden, file.getValue());
            }
            assertTrue(Files.exists(golden), golden + " is missing: run with -Dslurmlet.golden.update=true");
            assertEquals(Files.readString(golden), file.getValue(), golden + " differs");
        }
    }
}
