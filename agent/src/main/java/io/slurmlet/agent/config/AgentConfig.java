package io.slurmlet.agent.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The agent's own configuration: {@code /etc/slurmlet/agent.yaml} (under {@code slurmlet:}), or
 * {@code SLURMLET_*} environment variables. The Slurm cluster's settings are not here: the leader
 * stores those and {@code ctl slurm set} changes them.
 */
@ConfigMapping(prefix = "slurmlet")
public interface AgentConfig {

    /** Where the agent keeps its state: the leader's settings, its token, the last plan. Root-only. */
    @WithDefault("/var/lib/slurmlet")
    Path stateDir();

    /** The leader role. */
    Leader leader();

    interface Leader {
        /** Whether this agent is the leader: holds the settings and serves the settings API. */
        @WithDefault("true")
        boolean enabled();

        /**
         * The file holding the admin token that every /v1 call over TCP must carry. Made at first
         * start, readable by root only. Empty: {@code admin.token} in the state directory.
         */
        Optional<Path> adminTokenFile();

        /**
         * The largest request body the settings API reads, in bytes; a larger one is refused with
         * 400. Ten thousand node names fit in well under the default.
         */
        @WithDefault("1048576")
        int maxBodyBytes();
    }
}
