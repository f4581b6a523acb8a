package io.slurmlet.agent.facts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.Commands.Result;
import io.slurmlet.model.facts.NodeFacts.Gpus;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The pure readers of /proc, nvidia-smi and os-release. */
class ParsersTest {

    @Test
    void intelTwoSocketsHyperthreaded() {
        List<CpuTopology.Cpu> cpus = CpuTopology.parseCpuinfo(Samples.intelTwoSocketsHyperthreaded());
        assertEquals(8, cpus.size());
        assertEquals(new CpuTopology.Cpu(3, OptionalInt.of(1), OptionalInt.of(4)), cpus.get(3));
        assertEquals(new CpuTopology(8, 2, 2, 2), CpuTopology.of(cpus));
    }

    @Test
    void arm64CpuinfoHasNoPlacesSoItIsFlat() {
        List<CpuTopology.Cpu> cpus = CpuTopology.parseCpuinfo(Samples.ARM64);
        assertEquals(
                List.of(
                        CpuTopology.Cpu.unknown(0),
                        CpuTopology.Cpu.unknown(1),
                        CpuTopology.Cpu.unknown(2),
                        CpuTopology.Cpu.unknown(3)),
                cpus);
        assertEquals(new CpuTopology(4, 1, 4, 1), CpuTopology.of(cpus));
    }

    @Test
    void countsThatDoNotMultiplyOutAreFlat() {
        // Socket 0 has 2 cores, socket 1 one: Slurm cannot say that in one NodeName line.
        List<CpuTopology.Cpu> cpus = List.of(
                new CpuTopology.Cpu(0, OptionalInt.of(0), OptionalInt.of(0)),
                new CpuTopology.Cpu(1, OptionalInt.of(0), OptionalInt.of(1)),
                new CpuTopology.Cpu(2, OptionalInt.of(1), OptionalInt.of(0)));
        assertEquals(CpuTopology.flat(3), CpuTopology.of(cpus));
        assertEquals(CpuTopology.flat(0), CpuTopology.of(List.of()));
    }

    @Test
    void memTotalInMiB() {
        assertEquals(OptionalLong.of(773779), MemInfo.totalMiB(Samples.MEMINFO));
        assertEquals(OptionalLong.empty(), MemInfo.totalMiB("MemFree: 12 kB\n"));
    }

    @Test
    void eightH100() {
        assertEquals(List.of(new Gpus("NVIDIA H100 80GB HBM3", 8)), NvidiaSmi.parse(Samples.EIGHT_H100));
    }

    @Test
    void mixedMachineOneEntryPerModelInFirstSeenOrder() {
        assertEquals(
                List.of(new Gpus("NVIDIA A100-SXM4-80GB", 4), new Gpus("NVIDIA L40S", 2)),
                NvidiaSmi.parse(Samples.FOUR_A100_TWO_L40S));
    }

    @Test
    void noGpuLinesNoGpus() {
        assertEquals(List.of(), NvidiaSmi.parse("\n"));
        NvidiaSmi.Listing l = NvidiaSmi.read(Result.ok(""));
        assertEquals(List.of(), l.gpus());
        assertTrue(l.problem().isEmpty());
    }

    @Test
    void theDriverFailureIsAProblemNotAGpu() {
        NvidiaSmi.Listing l = NvidiaSmi.read(new Result(9, Samples.NVIDIA_SMI_NO_DRIVER, ""));
        assertEquals(List.of(), l.gpus());
        assertEquals(
                "`nvidia-smi --query-gpu=name --format=csv,noheader` exited with status 9; it printed: "
                        + "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
                        + "latest NVIDIA driver is installed and running.; this machine's GPUs are not counted: check the "
                        + "NVIDIA driver (run nvidia-smi by hand) and restart the agent or wait for its next look",
                l.problem().orElseThrow());
        // Even should it come with status 0.
        NvidiaSmi.Listing zero = NvidiaSmi.read(Result.ok(Samples.NVIDIA_SMI_NO_DRIVER));
        assertEquals(List.of(), zero.gpus());
        assertTrue(zero.problem().orElseThrow().contains("printed an error instead of GPU names"));
    }

    @Test
    void osRelease() {
        assertEquals("debian 12", OsRelease.describe(Samples.DEBIAN_12));
        assertEquals("ubuntu 24.04", OsRelease.describe(Samples.UBUNTU_2404));
        assertEquals("rocky 9.4", OsRelease.describe(Samples.ROCKY_9));
        assertEquals("rhel 9.4", OsRelease.describe("ID='rhel'\nVERSION_ID=\"9.4\"\n"));
        assertEquals("debian", OsRelease.describe("# sid has no version\nID=debian\n"));
        assertEquals("", OsRelease.describe("NAME=\"Something\"\n"));
        assertEquals(
                "Rocky \"Linux\"",
                OsRelease.parse("NAME=\"Rocky \\\"Linux\\\"\"").get("NAME"));
    }
}
