package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;

/**
 * Slurm 25.11 and later: slurmctld can hand slow clients' replies to the kernel
 * ({@code SlurmctldParameters=enable_async_reply}, experimental, only when asked for).
 */
class Slurm2511 extends Slurm2505 {

    @Override
    SlurmVersion since() {
        return SlurmVersion.of(25, 11);
    }

    @Override
    List<Problem> unsupported(SlurmSettings settings, SlurmVersion controller) {
        return List.of();
    }

    @Override
    List<String> slurmctldParameters(SlurmSettings s) {
        return s.experimental().enableAsyncReply() ? List.of("enable_async_reply") : List.of();
    }
}
