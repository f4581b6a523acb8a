package io.slurmlet.agent.leader;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.slurmlet.agent.api.AgentChannel;
import io.slurmlet.agent.config.AgentConfig;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.net.InetAddress;
import java.util.List;

/**
 * On the leader only: opens the durable state (so a state directory that cannot be read stops the
 * agent at once, with the reason), makes the CA, the tokens and the munge key at the first start,
 * publishes the plans and opens the agents' channel.
 */
@ApplicationScoped
public class LeaderStartup {

    @Inject
    AgentConfig config;

    @Inject
    Instance<SettingsStore> settings;

    @Inject
    Instance<Inventory> inventory;

    @Inject
    Instance<TokenFile> adminToken;

    @Inject
    Instance<JoinTokens> joinTokens;

    @Inject
    Instance<AgentCredentials> credentials;

    @Inject
    Instance<Pki> pki;

    @Inject
    Instance<PlanPublisher> plans;

    @Inject
    Instance<NodeReports> reports;

    @Inject
    Instance<AccountsStore> accounts;

    @Inject
    Instance<io.slurmlet.agent.leader.lending.LendingEngine> lending;

    private AgentChannel channel;
    private volatile int agentPort;

    void start(@Observes StartupEvent event, Vertx vertx) throws Exception {
        if (!config.isLeader()) {
            return;
        }
        settings.get().current();
        adminToken.get();
        channel = new AgentChannel(pki.get(), joinTokens.get(), credentials.get(), inventory.get(), plans.get(),
                reports.get(), config.node().pollWait(), lending.get());
        agentPort = channel.start(vertx, config);
        lending.get().start();
        config.leader().accountsSync().filter(a -> !a.isEmpty()).ifPresent(argv -> {
            AccountsSync sync = new AccountsSync(new io.slurmlet.agent.system.linux.LinuxCommands(), argv, accounts.get());
            vertx.executeBlocking(() -> sync.run());
            vertx.setPeriodic(Math.max(1000, config.leader().accountsSyncEvery().toMillis()),
                    id -> vertx.executeBlocking(() -> sync.run()));
        });
    }

    void stop(@Observes ShutdownEvent event) {
        if (channel != null) {
            channel.close();
            lending.get().close();
        }
    }

    /** The port the agents' channel listens on; 0 before it does. */
    public int agentPort() {
        return agentPort;
    }

    /** The address agents reach the leader at: the first advertised name, else this machine's host name. */
    public String advertisedUrl() {
        String host = config.leader().advertise().orElse(List.of()).stream().findFirst().orElseGet(() -> {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                return "localhost";
            }
        });
        return "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + agentPort;
    }
}
