package io.slurmlet.agent.facts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.facts.NodeFacts;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SlurmdConfigTest {

    @Test
    void readsTheNodeNameLineOfSlurmdC() {
        String out = """
                NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105
                UpTime=0-00:43:49
                """;
        assertEquals(
                Optional.of(NodeFacts.builder("n1")
                        .cpus(2)
                        .sockets(1)
                        .coresPerSocket(2)
                        .threadsPerCore(1)
                        .memoryMiB(24105)
                        .build()),
                SlurmdConfig.parse("n1", out));
    }

    @Test
    void aGpuMachineWithGres() {
        String out = "NodeName=gpu1 CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 ThreadsPerCore=2 "
                + "RealMemory=2063000 Gres=gpu:nvidia_h200:8\n";
        NodeFacts f = SlurmdConfig.parse("gpu1", out).orElseThrow();
        assertEquals(224, f.cpus());
        assertEquals(2, f.sockets());
        assertEquals(56, f.coresPerSocket());
        assertEquals(2, f.threadsPerCore());
        assertEquals(2_063_000, f.memoryMiB());
    }

    @Test
    void outputWithoutANodeLineOrWithGarbageGivesNothing() {
        assertEquals(Optional.empty(), SlurmdConfig.parse("n1", "slurmd: error: something\n"));
        assertEquals(Optional.empty(), SlurmdConfig.parse("n1", "NodeName=x CPUs=two RealMemory=1\n"));
        assertEquals(Optional.empty(), SlurmdConfig.parse("n1", "NodeName=x CPUs=2\n"));
    }
}
