package io.slurmlet.model.facts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class FactsCheckTest {

    static final NodeFacts GOOD = NodeFacts.builder("n1")
            .cpus(64)
            .sockets(2)
            .coresPerSocket(16)
            .threadsPerCore(2)
            .memoryMiB(515_000)
            .gpus(List.of(new NodeFacts.Gpus("NVIDIA H100 80GB HBM3", 8)))
            .os("debian 13")
            .slurmVersion("24.11.5")
            .build();

    /** One of everything, 1 GiB: what a test changes one field of. */
    static final NodeFacts ONES = NodeFacts.builder("n1")
            .cpus(1)
            .sockets(1)
            .coresPerSocket(1)
            .threadsPerCore(1)
            .memoryMiB(1024)
            .build();

    /** Strings that end a slurm.conf line, start another, close a quote, continue a line, or are not text. */
    static final List<String> HOSTILE = List.of(
            "10.0.0.2\nPrologSlurmctld=/tmp/evil\n#",
            "a\rb",
            "a\"b",
            "a\\",
            "a#b",
            "a b",
            "a\tb",
            "a\u0000b",
            "a\ud800",
            "\udc00a",
            "a\u2028b",
            "\u202eab",
            "a\u2066b",
            "\ufeffa",
            "a=b",
            "a,b",
            "*",
            "");

    @Test
    void whatAnAgentReportsPasses() {
        assertEquals(List.of(), FactsCheck.problems("n1", GOOD));
        assertEquals(
                List.of(),
                FactsCheck.problems(
                        "n1",
                        with(f -> NodeFacts.builder("")
                                .address("10.0.0.7")
                                .cpus(1)
                                .sockets(1)
                                .coresPerSocket(1)
                                .threadsPerCore(1)
                                .memoryMiB(1)
                                .build())));
        for (String address :
                List.of("10.0.0.7", "fd00::5", "::1", "2001:db8::10.0.0.1", "gpu001", "gpu001.cluster.example.org")) {
            assertEquals(List.of(), FactsCheck.problems("n1", address(address)), address);
        }
        for (String model : List.of(
                "Tesla V100-SXM2-16GB",
                "NVIDIA GeForce RTX 4090",
                "AMD Instinct MI300X",
                "NVIDIA A100-SXM4-80GB (MIG 1g.10gb)")) {
            assertEquals(List.of(), FactsCheck.problems("n1", gpus(List.of(new NodeFacts.Gpus(model, 1)))), model);
        }
    }

    @Test
    void everyTextFieldRefusesWhatCouldBreakALineOrIsNotText() {
        for (String bad : HOSTILE) {
            if (!bad.isEmpty()) {
                assertRefused("address", bad, address(bad));
                if (!bad.equals("a b")) {
                    assertRefused(
                            "os",
                            "debian" + bad,
                            with(f -> f.toBuilder().os("debian" + bad).build()));
                }
                assertRefused(
                        "slurm_version",
                        "24.11.5" + bad,
                        with(f -> f.toBuilder().slurmVersion("24.11.5" + bad).build()));
            }
            if (bad.equals("a b") || bad.equals("")) {
                continue;
            }
            assertRefused("gpus[0].model", "NVIDIA " + bad, gpus(List.of(new NodeFacts.Gpus("NVIDIA " + bad, 1))));
        }
    }

    @Test
    void countsAreBoundedAsSlurmHoldsThem() {
        assertRefused("gpus[0].count", "-5", gpus(List.of(new NodeFacts.Gpus("NVIDIA H100", -5))));
        assertRefused("gpus[0].count", "0", gpus(List.of(new NodeFacts.Gpus("NVIDIA H100", 0))));
        assertRefused("gpus[0].count", "65", gpus(List.of(new NodeFacts.Gpus("NVIDIA H100", 65))));
        assertRefused(
                "gpus[1].model",
                "nvidia h100",
                gpus(List.of(new NodeFacts.Gpus("NVIDIA H100", 4), new NodeFacts.Gpus("nvidia h100", 4))));
        assertRefused("gpus[0].model", "", gpus(List.of(new NodeFacts.Gpus(null, 1))));
        assertRefused("gpus", "17", gpus(java.util.Collections.nCopies(17, new NodeFacts.Gpus("NVIDIA H100", 1))));
        assertRefused("cpus", "0", with(f -> ONES.toBuilder().cpus(0).build()));
        assertRefused("cpus", "65536", with(f -> ONES.toBuilder().cpus(65_536).build()));
        assertRefused("sockets", "-1", with(f -> ONES.toBuilder().sockets(-1).build()));
        assertRefused(
                "cores_per_socket",
                "70000",
                with(f -> ONES.toBuilder().coresPerSocket(70_000).build()));
        assertRefused(
                "threads_per_core",
                "0",
                with(f -> ONES.toBuilder().threadsPerCore(0).build()));
        assertRefused(
                "boards", "65536", with(f -> ONES.toBuilder().boards(65_536).build()));
        assertRefused("memory_mib", "0", with(f -> ONES.toBuilder().memoryMiB(0).build()));
        assertRefused(
                "memory_mib",
                Long.toString(Long.MAX_VALUE),
                with(f -> ONES.toBuilder().memoryMiB(Long.MAX_VALUE).build()));
    }

    @Test
    void theSavedStatesVersionIsTwoBytesOrNone() {
        assertEquals(List.of(), FactsCheck.problems("n1", GOOD.withSlurmctldState(9728)));
        assertEquals(List.of(), FactsCheck.problems("n1", GOOD.withSlurmctldState(0)));
        assertRefused("slurmctld_state", "-1", GOOD.withSlurmctldState(-1));
        assertRefused("slurmctld_state", "65536", GOOD.withSlurmctldState(65536));
    }

    @Test
    void theSavedStateFieldsAreLeftOutWhereTheySayNothingSoAnOlderLeaderTakesTheFacts() throws Exception {
        String plain = io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(GOOD);
        assertTrue(!plain.contains("slurmctld_state") && !plain.contains("slurmctld_candidate"), plain);
        NodeFacts controller = GOOD.withSlurmctldState(9728).withSlurmctldCandidate("24.11.5");
        String json = io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(controller);
        assertTrue(
                json.contains("\"slurmctld_state\":9728") && json.contains("\"slurmctld_candidate\":\"24.11.5\""),
                json);
        assertEquals(controller, io.slurmlet.model.api.SettingsJson.STRICT.readValue(json, NodeFacts.class));
        assertEquals(GOOD, io.slurmlet.model.api.SettingsJson.STRICT.readValue(plain, NodeFacts.class));
    }

    @Test
    void whatAMachineHasForContainersIsVersionsAndADigestAndLeftOutWhenNothing() throws Exception {
        ContainerFacts ready = new ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true);
        assertEquals(List.of(), FactsCheck.problems("n1", GOOD.withContainers(ready)));
        for (String bad : HOSTILE.stream().filter(b -> !b.isEmpty()).toList()) {
            assertRefused(
                    "containers.enroot",
                    "4.1" + bad,
                    GOOD.withContainers(new ContainerFacts("4.1" + bad, "", "", "", false)));
        }
        assertRefused(
                "containers.pyxis_slurm",
                "24.11.5\nx",
                GOOD.withContainers(new ContainerFacts("4.1.2", "0.24.0", "24.11.5\nx", "e".repeat(64), true)));
        assertRefused(
                "containers.nvidia_container_cli",
                "1.17.8\nx",
                GOOD.withContainers(
                        new ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true, "1.17.8\nx")));
        assertRefused(
                "containers.pyxis_sha256",
                "E".repeat(64),
                GOOD.withContainers(new ContainerFacts("4.1.2", "0.24.0", "24.11.5", "E".repeat(64), true)));
        String json =
                io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(GOOD.withContainers(ContainerFacts.NONE));
        assertTrue(
                !json.contains("containers"),
                "nothing for containers is no key: a leader before them takes the facts: " + json);
        NodeFacts withReady = GOOD.withContainers(ready);
        assertEquals(
                withReady,
                io.slurmlet.model.api.SettingsJson.STRICT.readValue(
                        io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(withReady), NodeFacts.class));
    }

    @Test
    void thePluginsArePluginFileNamesAndTheirListIsBoundedAndLeftOutWhenEmpty() throws Exception {
        NodeFacts controller = GOOD.withSlurmPlugins(List.of("auth_munge", "sched_backfill", "switch_nvidia_imex"));
        assertEquals(List.of(), FactsCheck.problems("n1", controller));
        for (String bad : HOSTILE.stream().filter(b -> !b.isEmpty()).toList()) {
            assertRefused(
                    "slurm_plugins", "sched_" + bad, GOOD.withSlurmPlugins(List.of("auth_munge", "sched_" + bad)));
        }
        assertRefused("slurm_plugins", "Sched_backfill", GOOD.withSlurmPlugins(List.of("Sched_backfill")));
        assertRefused("slurm_plugins", "sched_backfill.so", GOOD.withSlurmPlugins(List.of("sched_backfill.so")));
        assertRefused("slurm_plugins", "", GOOD.withSlurmPlugins(java.util.Arrays.asList("auth_munge", null)));
        assertRefused(
                "slurm_plugins", "1025", GOOD.withSlurmPlugins(java.util.Collections.nCopies(1025, "auth_munge")));
        String plain = io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(GOOD);
        assertTrue(!plain.contains("slurm_plugins"), plain);
        String json = io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(controller);
        assertTrue(json.contains("\"slurm_plugins\":[\"auth_munge\",\"sched_backfill\",\"switch_nvidia_imex\"]"), json);
        assertEquals(controller, io.slurmlet.model.api.SettingsJson.STRICT.readValue(json, NodeFacts.class));
    }

    @Test
    void theNameIsTheMachinesOwn() {
        assertRefused(
                "name",
                "n2",
                with(f -> NodeFacts.builder("n2")
                        .cpus(1)
                        .sockets(1)
                        .coresPerSocket(1)
                        .threadsPerCore(1)
                        .memoryMiB(1024)
                        .build()));
        List<Problem> problems = FactsCheck.problems("n1\nNodeName=x", GOOD);
        assertTrue(problems.stream().anyMatch(p -> p.key().equals("node")), problems::toString);
    }

    static void assertRefused(String key, String value, NodeFacts facts) {
        String context = Text.quote(value);
        List<Problem> problems = FactsCheck.problems("n1", facts);
        assertEquals(1, problems.size(), () -> context + ": " + problems);
        assertEquals(key, problems.get(0).key(), context);
        assertEquals(value, problems.get(0).value(), context);
        String message = problems.get(0).message();
        assertTrue(message.startsWith(key), message);
        assertEquals(Optional.empty(), Text.unsafe(message), "one line of text: " + message);
        assertTrue(message.contains(Text.quote(value)) || value.matches("-?[0-9]*"), message);
    }

    static NodeFacts with(Function<NodeFacts, NodeFacts> change) {
        return change.apply(GOOD);
    }

    static NodeFacts address(String address) {
        return with(f -> f.toBuilder().address(address).build());
    }

    static NodeFacts gpus(List<NodeFacts.Gpus> gpus) {
        return with(f -> f.toBuilder().gpus(gpus).build());
    }
}
