package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;

/**
 * Slurm 26.11 and later: slurmctld always replies asynchronously, and {@code enable_async_reply}
 * is gone from {@code SlurmctldParameters} (Slurm's commit 24a0d1e, "Require asynchronous RPC
 * replies"), so it is never written; a setting that asks for it gets a note saying why.
 */
class Slurm2611 extends Slurm2511 {

    @Override
    SlurmVersion since() {
        return SlurmVersion.of(26, 11);
    }

    @Override
    List<String> slurmctldParameters(SlurmSettings s) {
        return List.of();
    }

    @Override
    List<String> notes(SlurmSettings s, SlurmVersion controller) {
        return s.experimental().enableAsyncReply()
                ? List.of(("experimental.enable_async_reply: Slurm %s always replies asynchronously (26.11 removed "
                                + "the enable_async_reply parameter), so nothing is written for it; "
                                + "set experimental.enable_async_reply=false to drop this note")
                        .formatted(controller))
                : List.of();
    }
}
