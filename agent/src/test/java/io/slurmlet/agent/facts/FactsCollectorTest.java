package io.slurmlet.agent.facts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.Commands.Result;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.linux.LinuxHostFiles;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.facts.NodeFacts.Gpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collector with fake commands and a made-up machine in a temporary folder. */
class FactsCollectorTest {

    private static final List<String> SLURMD_C = List.of("slurmd", "-C");
    private static final List<String> SLURMD_V = List.of("slurmd", "-V");
    private static final List<String> NVIDIA_SMI = List.of("nvidia-smi", "--query-gpu=name", "--format=csv,noheader");
    private static final String SLURMD_C_OUT = """
            NodeName=gpu1 CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 ThreadsPerCore=2 RealMemory=2063000
            UpTime=12-03:11:52
            """;

    @TempDir
    Path root;

    private final FakeCommands commands = new FakeCommands();
    private FactsCollector collector;

    @BeforeEach
    void aDebianMachineWithTwoXeons() throws IOException {
        put("proc/cpuinfo", Samples.intelTwoSocketsHyperthreaded());
        put("proc/meminfo", Samples.MEMINFO);
        put("etc/os-release", Samples.DEBIAN_12);
        collector = new FactsCollector(commands, new LinuxHostFiles(root));
    }

    @Test
    void theSlurmPluginsWhereSlurmctldIsInstalledAreThoseOfTheFolderHoldingAuthMungeDebiansMultiarchOneFirst()
            throws IOException {
        commands.answer(SLURMD_C, SLURMD_C_OUT)
                .answer(SLURMD_V, "slurm-wlm 24.11.5\n")
                .notInstalled("nvidia-smi");
        put("usr/lib64/slurm/auth_munge.so", "");
        assertEquals(
                List.of(), collector.collect("gpu1").facts().slurmPlugins(), "no slurmctld here: not the controller's");
        put("usr/local/sbin/slurmctld", "");
        assertEquals(
                List.of("auth_munge"), collector.collect("gpu1").facts().slurmPlugins(), "a source build's slurmctld");
        Files.delete(root.resolve("usr/lib64/slurm/auth_munge.so"));
        FactsCollector.Collected none = collector.collect("gpu1");
        assertEquals(List.of(), none.facts().slurmPlugins(), "no plugin folder: none reported");
        assertEquals(List.of(), none.warnings());
        put("usr/lib64/slurm/auth_munge.so", "");
        put("usr/lib64/slurm/switch_bogus.so", "");
        put("usr/lib/jvm/slurm-wlm/auth_munge.so", "");
        put("usr/lib/x86_64-linux-gnu/slurm-wlm/README", "");
        put("usr/lib/x86_64-linux-gnu/slurm-wlm/switch_nvidia_imex.so", "");
        put("usr/lib/x86_64-linux-gnu/slurm-wlm/sched_backfill.so", "");
        assertEquals(
                List.of("auth_munge", "switch_bogus"),
                collector.collect("gpu1").facts().slurmPlugins(),
                "no auth_munge in the multiarch folder: not Slurm's PluginDir");
        put("usr/lib/x86_64-linux-gnu/slurm-wlm/auth_munge.so", "");
        put("usr/lib/x86_64-linux-gnu/slurm-wlm/Odd Name.so", "");
        FactsCollector.Collected c = collector.collect("gpu1");
        assertEquals(
                List.of("auth_munge", "sched_backfill", "switch_nvidia_imex"),
                c.facts().slurmPlugins());
        assertEquals(List.of(), c.warnings());
        assertEquals(List.of(), io.slurmlet.model.facts.FactsCheck.problems("gpu1", c.facts()));
    }

    /** The sha256 of a plugin file holding "ELF". */
    static final String ELF =
            io.slurmlet.agent.reconcile.ManagedFiles.sha256("ELF".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    @Test
    void whatTheMachineHasForContainersIsEnrootsVersionThePyxisItsStampNamesWhereThePluginIsAndSlurmletsProlog()
            throws IOException {
        commands.answer(SLURMD_C, SLURMD_C_OUT)
                .answer(SLURMD_V, "slurm-wlm 24.11.5\n")
                .notInstalled("nvidia-smi");
        assertEquals(
                null, collector.collect("gpu1").facts().containers(), "nothing for containers: not reported at all");
        put("usr/bin/enroot", "#!/usr/bin/env bash\nexport ENROOT_VERSION=\"4.1.2\"\n");
        String stamp = "{\"pyxis\":\"0.24.0\",\"slurm\":\"24.11.5\",\"source_sha256\":\"" + "c".repeat(64)
                + "\",\"sha256\":\"" + ELF + "\"}";
        put("usr/local/lib/slurmlet/pyxis.json", stamp);
        assertEquals(
                new io.slurmlet.model.facts.ContainerFacts("4.1.2", "", "", "", false),
                collector.collect("gpu1").facts().containers(),
                "a stamp without its plugin is no pyxis");
        String other = "ELF changed behind slurmlet's back";
        put("usr/local/lib/slurm/spank_pyxis.so", other);
        put("usr/local/lib/slurmlet/prolog", "#!/bin/sh\n# written by slurmlet: Slurm's prolog\n");
        assertEquals(
                new io.slurmlet.model.facts.ContainerFacts(
                        "4.1.2",
                        "0.24.0",
                        "24.11.5",
                        io.slurmlet.agent.reconcile.ManagedFiles.sha256(
                                other.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                        true),
                collector.collect("gpu1").facts().containers(),
                "the digest is the plugin file's own, not the stamp's");
        put("usr/local/lib/slurm/spank_pyxis.so", "ELF");
        FactsCollector.Collected c = collector.collect("gpu1");
        assertEquals(
                new io.slurmlet.model.facts.ContainerFacts("4.1.2", "0.24.0", "24.11.5", ELF, true),
                c.facts().containers());
        assertTrue(c.facts().containerTools().readyFor("24.11.5", false));
        assertEquals(List.of(), io.slurmlet.model.facts.FactsCheck.problems("gpu1", c.facts()));
    }

    @Test
    void onAMachineWithGpusNvidiaContainerCliIsReportedAsItsVersionSaysAndItIsWhatContainersThereStillLack()
            throws IOException {
        commands.answer(SLURMD_C, SLURMD_C_OUT)
                .answer(SLURMD_V, "slurm-wlm 24.11.5\n")
                .answer(NVIDIA_SMI, Samples.EIGHT_H100);
        put("usr/bin/enroot", "#!/usr/bin/env bash\nexport ENROOT_VERSION=\"4.1.2\"\n");
        put("usr/local/lib/slurm/spank_pyxis.so", "ELF");
        put(
                "usr/local/lib/slurmlet/pyxis.json",
                "{\"pyxis\":\"0.24.0\",\"slurm\":\"24.11.5\",\"source_sha256\":\"" + "c".repeat(64) + "\",\"sha256\":\""
                        + ELF + "\"}");
        put("usr/local/lib/slurmlet/prolog", "#!/bin/sh\n# written by slurmlet: Slurm's prolog\n");
        FactsCollector.Collected without = collector.collect("gpu1");
        assertEquals("", without.facts().containerTools().nvidiaCli());
        assertEquals(
                "nvidia-container-cli (it has NVIDIA GPUs)",
                without.facts().containerTools().lacks("24.11.5", true));
        assertFalse(
                commands.log().stream().anyMatch(argv -> argv.get(0).contains("nvidia-container-cli")),
                "not installed: not run");

        put("usr/bin/nvidia-container-cli", "ELF");
        commands.answer(
                List.of("/usr/bin/nvidia-container-cli", "--version"),
                "cli-version: 1.17.8\nlib-version: 1.17.8\nbuild date: 2025-05-30T13:47+00:00\n");
        FactsCollector.Collected with = collector.collect("gpu1");
        assertEquals(
                new io.slurmlet.model.facts.ContainerFacts("4.1.2", "0.24.0", "24.11.5", ELF, true, "1.17.8"),
                with.facts().containers());
        assertTrue(with.facts().containerTools().readyFor("24.11.5", true));
        assertEquals(List.of(), io.slurmlet.model.facts.FactsCheck.problems("gpu1", with.facts()));
    }

    @Test
    void slurmdInstalledGivesCpusMemoryAndVersion() {
        commands.answer(SLURMD_C, SLURMD_C_OUT)
                .answer(SLURMD_V, "slurm-wlm 22.05.8\n")
                .answer(NVIDIA_SMI, Samples.EIGHT_H100);

        FactsCollector.Collected c = collector.collect("gpu1");

        assertEquals(
                NodeFacts.builder("gpu1")
                        .cpus(224)
                        .sockets(2)
                        .coresPerSocket(56)
                        .threadsPerCore(2)
                        .memoryMiB(2_063_000)
                        .gpus(List.of(new Gpus("NVIDIA H100 80GB HBM3", 8)))
                        .os("debian 12")
                        .slurmVersion("22.05.8")
                        .build(),
                c.facts());
        assertEquals(List.of(), c.warnings());
        assertEquals(List.of(SLURMD_C, SLURMD_V, NVIDIA_SMI), commands.log());
        assertTrue(commands.calls().stream().allMatch(call -> call.deadline().equals(Duration.ofSeconds(10))));
    }

    @Test
    void withoutSlurmdCpusAndMemoryComeFromProcAndNoVersionIsAsked() {
        commands.notInstalled("slurmd").answer(NVIDIA_SMI, Samples.FOUR_A100_TWO_L40S);

        FactsCollector.Collected c = collector.collect("n1");

        assertEquals(
                NodeFacts.builder("n1")
                        .cpus(8)
                        .sockets(2)
                        .coresPerSocket(2)
                        .threadsPerCore(2)
                        .memoryMiB(773_779)
                        .gpus(List.of(new Gpus("NVIDIA A100-SXM4-80GB", 4), new Gpus("NVIDIA L40S", 2)))
                        .os("debian 12")
                        .build(),
                c.facts());
        assertEquals(List.of(), c.warnings());
        assertEquals(List.of(SLURMD_C, NVIDIA_SMI), commands.log());
    }

    @Test
    void withoutNvidiaSmiThereAreNoGpusAndNothingToWarnAbout() {
        commands.notInstalled("slurmd").notInstalled("nvidia-smi");

        FactsCollector.Collected c = collector.collect("n1");

        assertEquals(List.of(), c.facts().gpus());
        assertEquals(List.of(), c.warnings());
        assertEquals(List.of(SLURMD_C, NVIDIA_SMI), commands.log());
    }

    @Test
    void aFailingNvidiaSmiGivesNoGpusAndAWarning() {
        commands.notInstalled("slurmd").answer(NVIDIA_SMI, new Result(9, Samples.NVIDIA_SMI_NO_DRIVER, ""));

        FactsCollector.Collected c = collector.collect("n1");

        assertEquals(List.of(), c.facts().gpus());
        assertEquals(8, c.facts().cpus());
        assertEquals(1, c.warnings().size());
        assertTrue(
                c.warnings()
                        .get(0)
                        .startsWith(
                                "`nvidia-smi --query-gpu=name --format=csv,noheader` exited with "
                                        + "status 9; it printed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."),
                c.warnings().get(0));
    }

    @Test
    void slurmdPastItsDeadlineFallsBackToProcAndSaysSo() {
        commands.pastDeadline(SLURMD_C, "").answer(SLURMD_V, "slurm 24.11.5\n").notInstalled("nvidia-smi");

        FactsCollector.Collected c = collector.collect("n1");

        assertEquals(
                NodeFacts.builder("n1")
                        .cpus(8)
                        .sockets(2)
                        .coresPerSocket(2)
                        .threadsPerCore(2)
                        .memoryMiB(773_779)
                        .os("debian 12")
                        .slurmVersion("24.11.5")
                        .build(),
                c.facts());
        assertEquals(
                List.of("`slurmd -C` ran past its deadline of 10 s and was killed with its child processes; "
                        + "CPUs and memory were read from /proc and /sys instead"),
                c.warnings());
        assertEquals(List.of(SLURMD_C, SLURMD_V, NVIDIA_SMI), commands.log());
    }

    @Test
    void slurmdFailingFallsBackToProcAndQuotesIt() {
        commands.answer(SLURMD_C, new Result(1, "", "slurmd: fatal: Unable to determine this slurmd's NodeName\n"))
                .answer(SLURMD_V, "slurm 23.11.10\n")
                .notInstalled("nvidia-smi");

        FactsCollector.Collected c = collector.collect("n1");

        assertEquals(8, c.facts().cpus());
        assertEquals("23.11.10", c.facts().slurmVersion());
        assertEquals(
                List.of("`slurmd -C` exited with status 1; it printed: slurmd: fatal: Unable to determine this "
                        + "slurmd's NodeName; CPUs and memory were read from /proc and /sys instead"),
                c.warnings());
    }

    @Test
    void arm64TakesTheTopologyFromSysfs() throws IOException {
        put("proc/cpuinfo", Samples.ARM64);
        // Two clusters of two cores, one thread each; package ids as the kernel gives them.
        for (int cpu = 0; cpu < 4; cpu++) {
            put("sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id", (cpu / 2) + "\n");
            put("sys/devices/system/cpu/cpu" + cpu + "/topology/core_id", (cpu % 2) + "\n");
        }
        commands.notInstalled("slurmd").notInstalled("nvidia-smi");

        FactsCollector.Collected c = collector.collect("arm1");

        assertEquals(
                List.of(4, 2, 2, 1),
                List.of(
                        c.facts().cpus(),
                        c.facts().sockets(),
                        c.facts().coresPerSocket(),
                        c.facts().threadsPerCore()));
        assertEquals(List.of(), c.warnings());
    }

    @Test
    void arm64WithoutSysfsIsOneSocketOfSingleThreadedCores() throws IOException {
        put("proc/cpuinfo", Samples.ARM64);
        commands.notInstalled("slurmd").notInstalled("nvidia-smi");

        NodeFacts f = collector.collect("arm1").facts();

        assertEquals(List.of(4, 1, 4, 1), List.of(f.cpus(), f.sockets(), f.coresPerSocket(), f.threadsPerCore()));
    }

    @Test
    void withoutCpuinfoTheCpusAreCountedInSysfs() throws IOException {
        Files.delete(root.resolve("proc/cpuinfo"));
        for (String d : List.of("cpu0", "cpu1", "cpu2", "cpufreq", "cpuidle")) {
            Files.createDirectories(root.resolve("sys/devices/system/cpu/" + d));
        }
        commands.notInstalled("slurmd").notInstalled("nvidia-smi");

        assertEquals(3, collector.collect("n1").facts().cpus());
    }

    @Test
    void withoutOsReleaseTheOsIsEmptyAndSaidSo() throws IOException {
        Files.delete(root.resolve("etc/os-release"));
        commands.notInstalled("slurmd").notInstalled("nvidia-smi");

        FactsCollector.Collected c = collector.collect("n1");

        assertEquals("", c.facts().os());
        assertEquals(
                List.of("neither /etc/os-release nor /usr/lib/os-release exists; the operating system is not "
                        + "reported"),
                c.warnings());
    }

    @Test
    void usrLibOsReleaseStandsInForEtc() throws IOException {
        Files.delete(root.resolve("etc/os-release"));
        put("usr/lib/os-release", Samples.ROCKY_9);
        commands.notInstalled("slurmd").notInstalled("nvidia-smi");

        assertEquals("rocky 9.4", collector.collect("n1").facts().os());
    }

    @Test
    void anUnreadableSlurmdVersionIsAWarning() {
        commands.answer(SLURMD_C, SLURMD_C_OUT)
                .answer(SLURMD_V, "something else\n")
                .notInstalled("nvidia-smi");

        FactsCollector.Collected c = collector.collect("gpu1");

        assertEquals("", c.facts().slurmVersion());
        assertEquals(
                List.of("`slurmd -V` printed no version (it printed: something else); the installed Slurm "
                        + "version is not reported"),
                c.warnings());
    }

    private void put(String relative, String content) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    @Test
    void slurmctldsSavedStateIsReportedWithTheProtocolVersionItWasWrittenWith() throws IOException {
        put("var/lib/slurm/slurmctld/assoc_usage", "&\0");
        commands.notInstalled("slurmd").notInstalled("nvidia-smi").answer(ControllerFacts.SAVED_STATE, "  38   0\n");

        commands.answer(ControllerFacts.APT_POLICY, """
                slurmctld:
                  Installed: 22.05.8-4+deb12u3
                  Candidate: 24.11.5-1
                  Version table:
                """);

        NodeFacts facts = collector.collect("n0").facts();
        assertEquals(9728, facts.slurmctldState(), "22.05's");
        assertEquals(
                "24.11.5", facts.slurmctldCandidate(), "what the next upgrade installs, as the leader reads versions");
        assertEquals(
                List.of(SLURMD_C, NVIDIA_SMI, ControllerFacts.SAVED_STATE, ControllerFacts.APT_POLICY), commands.log());

        commands.answer(
                ControllerFacts.APT_POLICY,
                "slurmctld:\n  Installed: 22.05.8-4+deb12u3\n  Candidate: 22.05.8-4+deb12u3\n");
        assertEquals("", collector.collect("n0").facts().slurmctldCandidate(), "nothing newer");
    }
}
