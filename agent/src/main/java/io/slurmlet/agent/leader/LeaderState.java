package io.slurmlet.agent.leader;

import io.slurmlet.agent.trust.Pki;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.TokenFile;

import io.slurmlet.agent.config.AgentConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import io.slurmlet.agent.leader.lending.Hooks;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.system.linux.LinuxCommands;

import java.time.Clock;

import java.io.IOException;
import java.util.List;

/**
 * Opens the leader's durable state: the settings store, the node inventory, the tokens, the
 * agents' credentials, the cluster's CA and munge key. A state directory that cannot be read stops
 * the agent with the reason, rather than serving empty settings. {@link LeaderStartup} (the settings)
 * and the agents' channel (the CA, tokens and credentials) open them at start on the leader only; an
 * agent that is not the leader never makes them.
 */
@ApplicationScoped
public class LeaderState {

    @Produces
    @Singleton
    SettingsStore settingsStore(AgentConfig config) throws IOException {
        return SettingsStore.open(config.stateDir());
    }

    @Produces
    @Singleton
    Inventory inventory(AgentConfig config) throws IOException {
        return Inventory.open(config.stateDir());
    }

    @Produces
    @Singleton
    TokenFile adminToken(AgentConfig config) throws IOException {
        return TokenFile.loadOrCreate(config.leader().adminTokenFile()
                .orElse(config.stateDir().resolve(TokenFile.FILE_NAME)));
    }

    @Produces
    @Singleton
    JoinTokens joinTokens(AgentConfig config) throws IOException {
        return JoinTokens.open(config.stateDir(), Clock.systemUTC());
    }

    @Produces
    @Singleton
    AgentCredentials agentCredentials(AgentConfig config) throws IOException {
        return AgentCredentials.open(config.stateDir());
    }

    @Produces
    @Singleton
    PlanPublisher planPublisher(AgentConfig config, SettingsStore settings, Inventory inventory, LendingBook lending,
                                AccountsStore accounts) throws IOException {
        return new PlanPublisher(settings, inventory, PlanPublisher.mungeKey(config.stateDir()),
                io.slurmlet.agent.leader.plan.PlanBook.open(config.stateDir()), lending, accounts);
    }

    @Produces
    @Singleton
    AccountsStore accountsStore(AgentConfig config) throws IOException {
        return AccountsStore.open(config.stateDir());
    }

    @Produces
    @Singleton
    LendingBook lendingBook(AgentConfig config) throws IOException {
        return LendingBook.open(config.stateDir());
    }

    @Produces
    @Singleton
    LendingEngine lendingEngine(AgentConfig config, LendingBook book, SettingsStore settings, Inventory inventory,
                                NodeReports reports, PlanPublisher plans) {
        AgentConfig.Platform platform = config.leader().platform();
        LendingEngine engine = new LendingEngine(book, settings, inventory, reports,
                new Hooks(new LinuxCommands(), platform.drain(), platform.release(), platform.hookDeadline()),
                platform.busyRetry(), plans::refresh, Clock.systemUTC());
        settings.onChange(engine::wake);
        engine.afterEachTick(plans::retryIfOwed);
        return engine;
    }

    @Produces
    @Singleton
    Pki pki(AgentConfig config) throws IOException {
        return Pki.open(config.stateDir().resolve(Pki.DIR), Pki.localNames(config.leader().advertise().orElse(List.of())));
    }

    @Produces
    @Singleton
    NodeReports nodeReports() {
        return new NodeReports();
    }
}
