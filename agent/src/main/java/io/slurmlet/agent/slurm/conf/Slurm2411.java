package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;

import java.util.List;

/**
 * Slurm 24.11: slurmd finds NVIDIA GPUs itself ({@code AutoDetect=nvidia}, no NVML library
 * needed; 22.05 calls the flag unknown, and Debian's 26.05 is built without NVML).
 */
class Slurm2411 extends Slurm2302 {

    @Override
    SlurmVersion since() {
        return SlurmVersion.of(24, 11);
    }

    @Override
    String gresConf(List<NodeFacts> nodes) {
        ConfText c = new ConfText("gres.conf", name());
        for (NodeFacts n : nodes) {
            if (n.gpuCount() > 0) {
                gpuLines(c, n);
            }
        }
        return c.toString();
    }

    /** The gres.conf lines of a node with GPUs. */
    void gpuLines(ConfText c, NodeFacts n) {
        c.line("NodeName", n.name(), "AutoDetect", "nvidia");
    }
}
