package io.slurmlet.agent.leader;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.store.EtcdElection;
import io.slurmlet.agent.store.EtcdStore;
import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.store.Store;
import io.slurmlet.agent.system.linux.LinuxCommands;
import io.slurmlet.agent.trust.LeaderFinder;
import io.slurmlet.agent.trust.LeaderRole;
import io.slurmlet.agent.trust.TokenFile;
import io.vertx.core.Vertx;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * On the leader only: opens the settings (so a state directory that cannot be read stops the agent
 * at once, with the reason) and the admin token, starts lending and the accounts' sync, then tells
 * the agents' channel to open ({@link Leading}; api.AgentChannelServer), and with it the CA, the join
 * tokens, the credentials and the plans, each made at the first start. With the file store that is
 * at start; with etcd once this agent is elected, having first taken the cluster's secrets from etcd
 * ({@link LeaderSecrets}); until then it stands by.
 */
@ApplicationScoped
public class LeaderStartup implements LeaderRole, LeaderFinder {

    private static final Logger LOG = Logger.getLogger(LeaderStartup.class);

    /** This agent leads from now on: what serves the agents opens. */
    public record Leading(Vertx vertx) {}

    @Inject
    AgentConfig config;

    @Inject
    Instance<SettingsStore> settings;

    @Inject
    Instance<TokenFile> adminToken;

    @Inject
    Instance<AccountsStore> accounts;

    @Inject
    Instance<LendingEngine> lending;

    @Inject
    Instance<Leadership> leadership;

    @Inject
    Instance<Store> store;

    @Inject
    Event<Leading> leading;

    private volatile boolean started;
    /** Set once this agent leads and has opened what it serves: until then its API and readiness say it stands by. */
    private volatile boolean serving;

    private volatile Thread campaign;

    /** Before the agents' channel (api.AgentChannelServer) opens on what this opened. */
    void start(@Observes @Priority(Interceptor.Priority.APPLICATION) StartupEvent event, Vertx vertx) {
        if (!config.isLeader()) {
            return;
        }
        if (!(leadership.get() instanceof EtcdElection election)) {
            lead(vertx);
            return;
        }
        LOG.infof(
                "leader-eligible: standing by until this agent is elected (etcd lease of %d s)",
                config.leader().store().etcd().lease().toSeconds());
        campaign = new Thread(
                () -> {
                    try {
                        if (election.campaign()) {
                            lead(vertx);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException | Error e) {
                        // A leader that cannot open its state must not stand there elected: another leads once this
                        // exits.
                        LOG.fatalf(e, "this agent was elected and cannot lead: %s", e.getMessage());
                        election.close();
                        Quarkus.asyncExit(1);
                    }
                },
                "slurmlet-campaign");
        campaign.setDaemon(true);
        campaign.start();
    }

    private void lead(Vertx vertx) {
        if (store.get() instanceof EtcdStore etcd) {
            takeSecrets(etcd);
        }
        settings.get().current();
        adminToken.get();
        started = true;
        lending.get().start();
        config.leader().accountsSync().filter(a -> !a.isEmpty()).ifPresent(argv -> {
            AccountsSync sync = new AccountsSync(new LinuxCommands(), argv, accounts.get());
            vertx.executeBlocking(() -> sync.run());
            vertx.setPeriodic(
                    Math.max(1000, config.leader().accountsSyncEvery().toMillis()),
                    id -> vertx.executeBlocking(() -> sync.run()));
        });
        leading.fire(new Leading(vertx));
        serving = true;
    }

    /**
     * Whether this agent leads and serves: its secrets taken, its state opened, the agents' channel
     * open. False on a standby, on a leader in the second it takes to open what it serves (a
     * request then would read an admin token not yet the cluster's), and once it no longer leads.
     */
    @Override
    public boolean serving() {
        return serving && leadership.get().leads();
    }

    @Override
    public boolean elected() {
        return leadership.get() instanceof EtcdElection;
    }

    /** The agents' channel of the agent the election last seen names ({@link EtcdElection#seenOther}). */
    @Override
    public Optional<URI> leaderOtherThan(String self) {
        return leadership.get() instanceof EtcdElection election
                ? election.seenOther(self).map(r -> URI.create(r.agents()))
                : Optional.empty();
    }

    /** The cluster's CA, munge key and admin token into the state folder from etcd, or this machine's into etcd (a new cluster's first leader). */
    private void takeSecrets(EtcdStore etcd) {
        try {
            LeaderSecrets.whenElected(
                    etcd,
                    config.leader().store().etcd().secretsKeyFile().orElseThrow(),
                    config.stateDir(),
                    LeaderState.adminTokenFile(config),
                    config.leader().advertise().orElse(List.of()));
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    /**
     * The cluster's CA and admin token as etcd holds them, sealed, opened with this machine's key
     * file: empty with the file store, or before the first leader put them there.
     */
    @Override
    public Optional<ClusterKeys> clusterKeys() throws IOException {
        if (!(store.get() instanceof EtcdStore etcd)) {
            return Optional.empty();
        }
        var file = config.leader().store().etcd().secretsKeyFile().orElseThrow();
        return LeaderSecrets.of(file, config.stateDir(), LeaderState.adminTokenFile(config))
                .peek(etcd, etcd.where(LeaderSecrets.KEY))
                .map(held -> new ClusterKeys(
                        held.get("ca.crt"),
                        held.get("ca.key"),
                        new String(held.get("admin.token"), StandardCharsets.UTF_8).strip()));
    }

    /** After the agents' channel closed (api.AgentChannelServer). */
    void stop(@Observes @Priority(Interceptor.Priority.APPLICATION + 100) ShutdownEvent event) {
        if (campaign != null) {
            campaign.interrupt();
        }
        if (started) {
            // A leader that lost the lead kills its running hooks at once: the new leader may be running them already.
            lending.get().close(leadership.get().leads() ? Duration.ofSeconds(5) : Duration.ZERO);
        }
    }
}
