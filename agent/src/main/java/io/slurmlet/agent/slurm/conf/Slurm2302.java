package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;

/** Slurm 23.02 to 24.05: nothing slurmlet writes differs from 22.05. */
class Slurm2302 extends Slurm2205 {

    @Override
    SlurmVersion since() {
        return SlurmVersion.of(23, 2);
    }
}
