package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;

/**
 * Slurm 25.05: a gres.conf line names the GPU type beside AutoDetect, so the type slurm.conf's
 * {@code Gres=gpu:TYPE:N} names is the one slurmd reports.
 */
class Slurm2505 extends Slurm2411 {

    @Override
    SlurmVersion since() {
        return SlurmVersion.of(25, 5);
    }

    @Override
    Object gpuKey(NodeFacts n) {
        return n.gpus().stream().map(NodeFacts.Gpus::slurmType).toList();
    }

    @Override
    void gpuLines(ConfText c, String names, NodeFacts n) {
        for (NodeFacts.Gpus g : n.gpus()) {
            c.line("NodeName", names, "AutoDetect", "nvidia", "Name", "gpu", "Type", g.slurmType());
        }
    }
}
