package io.slurmlet.agent.leader;

import io.quarkus.runtime.Startup;
import io.slurmlet.agent.config.AgentConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.io.IOException;

/**
 * Opens the leader's durable state at start: the settings store, the node inventory and the admin token. A state
 * directory that cannot be read stops the agent with the reason, rather than serving empty settings.
 */
@ApplicationScoped
public class LeaderState {

    @Produces
    @Singleton
    @Startup
    SettingsStore settingsStore(AgentConfig config) throws IOException {
        return SettingsStore.open(config.stateDir());
    }

    @Produces
    @Singleton
    @Startup
    Inventory inventory(AgentConfig config) throws IOException {
        return Inventory.open(config.stateDir());
    }

    @Produces
    @Singleton
    @Startup
    AdminToken adminToken(AgentConfig config) throws IOException {
        return AdminToken.loadOrCreate(config.leader().adminTokenFile()
                .orElse(config.stateDir().resolve(AdminToken.FILE_NAME)));
    }
}
