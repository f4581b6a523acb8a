package io.slurmlet.agent.facts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.slurmlet.agent.system.linux.LinuxCommands;
import io.slurmlet.agent.system.linux.LinuxHostFiles;
import io.slurmlet.model.facts.NodeFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The collector with the real ports, on a build machine without Slurm and without GPUs. */
class FactsCollectorOnThisMachineTest {

    @Test
    void factsOfThisMachine() throws IOException {
        LinuxCommands commands = new LinuxCommands();
        assumeTrue(
                commands.locate("slurmd").isEmpty()
                        && commands.locate("nvidia-smi").isEmpty(),
                "this test expects a machine without slurmd and nvidia-smi");

        FactsCollector.Collected c = new FactsCollector(commands, new LinuxHostFiles()).collect("here");
        NodeFacts f = c.facts();

        long procCpus = Files.readString(Path.of("/proc/cpuinfo"))
                .lines()
                .filter(l -> l.startsWith("processor"))
                .count();
        assertTrue(f.cpus() == Runtime.getRuntime().availableProcessors() || f.cpus() == procCpus, f.toString());
        assertEquals(f.cpus(), f.boards() * f.sockets() * f.coresPerSocket() * f.threadsPerCore(), f.toString());
        assertTrue(f.memoryMiB() > 0, f.toString());
        assertEquals(List.of(), f.gpus());
        assertEquals("", f.slurmVersion());
        assertEquals("", f.address());
        assertEquals(List.of(), c.warnings());
        String osRelease = Files.readString(Path.of("/etc/os-release"));
        if (osRelease.contains("ID=debian") && osRelease.contains("VERSION_ID=\"12\"")) {
            assertEquals("debian 12", f.os());
        } else {
            assertTrue(!f.os().isEmpty(), f.toString());
        }
        System.out.println("facts of this machine: " + f);
    }
}
