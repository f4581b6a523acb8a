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
        for (NodeLines.Line group : NodeLines.groupNames(
                nodes.stream().filter(n -> n.gpuCount() > 0).toList(), this::gpuKey)) {
            gpuLines(c, group.names(), group.first());
        }
        return c.toString();
    }

    /** What makes two GPU machines' gres.conf lines the same here: none, every one autodetects. */
    Object gpuKey(NodeFacts n) {
        return "";
    }

    /** The gres.conf lines of the GPU machines {@code names} (a host list), alike as {@code n}. */
    void gpuLines(ConfText c, String names, NodeFacts n) {
        c.line("NodeName", names, "AutoDetect", "nvidia");
    }
}
