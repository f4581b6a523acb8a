package io.slurmlet.agent.slurm;

import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import java.util.Optional;

/**
 * Which machines can run Slurm under {@code auth=slurm}: Slurm 24.05 or later, with the
 * {@code auth_slurm} plugin installed. 22.05 has no auth/slurm (Debian 12's plugins ship auth_munge
 * only), and 23.02 and 23.11 have it but keep their old keys across a reconfigure, since their
 * daemons do not re-execute (system-tests/slurm/FINDINGS.md): new keys would reach them only at a
 * restart. A machine that has not reported its version yet passes; its next facts decide.
 */
public final class AuthFloor {

    public static final SlurmVersion FLOOR = SlurmVersion.of(24, 5);
    static final String PLUGIN = "auth_slurm";

    private AuthFloor() {}

    /**
     * Why {@code name} cannot run Slurm under auth=slurm, as a problem of the key {@code auth}
     * naming the machine, its version and the fix; empty when it can, or is not known yet.
     */
    public static Optional<Problem> problem(String name, NodeFacts facts) {
        Optional<SlurmVersion> version = SlurmVersion.parse(facts.slurmVersion());
        if (version.isEmpty()) {
            return Optional.empty();
        }
        if (version.get().compareTo(FLOOR) < 0) {
            return Optional.of(new Problem(
                    "auth",
                    "slurm",
                    ("%s runs Slurm %s, %s: upgrade Slurm there to %s or later, or set auth=munge")
                            .formatted(
                                    name,
                                    facts.slurmVersion(),
                                    version.get().atLeast(23, 2)
                                            ? "whose daemons keep their keys across a reconfigure (they do not "
                                                    + "re-execute before 24.05)"
                                            : "which has no auth/slurm",
                                    FLOOR.release())));
        }
        if (!facts.slurmPlugins().isEmpty() && !facts.slurmPlugins().contains(PLUGIN)) {
            return Optional.of(new Problem(
                    "auth",
                    "slurm",
                    ("%s runs Slurm %s without its auth_slurm plugin: install the package of Slurm's plugins that "
                                    + "holds auth_slurm.so there (Debian's slurm-wlm-basic-plugins), or set auth=munge")
                            .formatted(name, facts.slurmVersion())));
        }
        return Optional.empty();
    }
}
