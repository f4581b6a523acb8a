package io.slurmlet.agent.leader;

import io.slurmlet.agent.trust.TokenFile;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.slurmlet.agent.config.AgentConfig;
import io.vertx.core.Vertx;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

/**
 * On the leader only: opens the settings (so a state directory that cannot be read stops the agent
 * at once, with the reason) and the admin token, starts lending and the accounts' sync. The agents'
 * channel opens after it (api.AgentChannelServer), and with it the CA, the join tokens, the
 * credentials and the plans, each made at the first start.
 */
@ApplicationScoped
public class LeaderStartup {

    @Inject
    AgentConfig config;

    @Inject
    Instance<SettingsStore> settings;

    @Inject
    Instance<TokenFile> adminToken;

    @Inject
    Instance<AccountsStore> accounts;

    @Inject
    Instance<io.slurmlet.agent.leader.lending.LendingEngine> lending;

    private volatile boolean started;

    /** Before the agents' channel (api.AgentChannelServer) opens on what this opened. */
    void start(@Observes @Priority(Interceptor.Priority.APPLICATION) StartupEvent event, Vertx vertx) {
        if (!config.isLeader()) {
            return;
        }
        settings.get().current();
        adminToken.get();
        started = true;
        lending.get().start();
        config.leader().accountsSync().filter(a -> !a.isEmpty()).ifPresent(argv -> {
            AccountsSync sync = new AccountsSync(new io.slurmlet.agent.system.linux.LinuxCommands(), argv, accounts.get());
            vertx.executeBlocking(() -> sync.run());
            vertx.setPeriodic(Math.max(1000, config.leader().accountsSyncEvery().toMillis()),
                    id -> vertx.executeBlocking(() -> sync.run()));
        });
    }

    /** After the agents' channel closed (api.AgentChannelServer). */
    void stop(@Observes @Priority(Interceptor.Priority.APPLICATION + 100) ShutdownEvent event) {
        if (started) {
            lending.get().close();
        }
    }
}
