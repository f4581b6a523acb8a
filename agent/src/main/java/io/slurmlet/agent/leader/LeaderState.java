package io.slurmlet.agent.leader;

import io.quarkus.runtime.Quarkus;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.leader.lending.Hooks;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.leader.plan.PlanBook;
import io.slurmlet.agent.store.EtcdElection;
import io.slurmlet.agent.store.EtcdStore;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.store.Store;
import io.slurmlet.agent.store.StoreMove;
import io.slurmlet.agent.system.linux.LinuxCommands;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.agent.trust.TokenFile;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Opens the leader's durable state: the settings store, the node inventory, the tokens, the
 * agents' credentials, the cluster's CA and munge key. A state directory that cannot be read stops
 * the agent with the reason, rather than serving empty settings. {@link LeaderStartup} (the settings)
 * and the agents' channel (the CA, tokens and credentials) open them at start on the leader only; an
 * agent that is not the leader never makes them.
 */
@ApplicationScoped
public class LeaderState {

    /**
     * The one store every document of the leader's is kept in: the state directory's files, or the
     * site's etcd ({@code slurmlet.leader.store.kind: etcd}). One that cannot be opened stops the agent
     * with the reason.
     */
    @Produces
    @Singleton
    Store store(AgentConfig config) throws IOException {
        AgentConfig.StoreConfig store = config.leader().store();
        if (store.kind() == AgentConfig.StoreConfig.Kind.FILE) {
            StoreMove.refuseMoved(config.stateDir());
            return FileStore.open(config.stateDir());
        }
        AgentConfig.Etcd etcd = store.etcd();
        if (etcd.lease().compareTo(Duration.ofSeconds(2)) < 0 || etcd.lease().compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalStateException(
                    ("slurmlet.leader.store.etcd.lease is %s: give 2s to 60s (5s, the default, has a standby "
                                    + "lead within about 6 s of the leader's death)")
                            .formatted(etcd.lease()));
        }
        if (etcd.secretsKeyFile().isEmpty()) {
            throw new IllegalStateException(
                    "slurmlet.leader.store.kind is etcd and slurmlet.leader.store.etcd.secrets-key-file is not set: "
                            + "make one key file with 'openssl rand -hex 32 > /etc/slurmlet/etcd/secrets.key; chmod 600 /etc/slurmlet/etcd/secrets.key', "
                            + "copy it to every leader-eligible machine and name it there (it seals the cluster's CA, munge key and admin token in etcd)");
        }
        List<String> endpoints = EtcdStore.endpoints(etcd);
        // Opened even while etcd does not answer: the agent stands by, its election asking again, and its machine's
        // part goes on.
        return EtcdStore.connect(
                endpoints, etcd.caFile(), etcd.certFile(), etcd.keyFile(), etcd.prefix(), etcd.timeout(), false);
    }

    /**
     * Who may act as the leader: with the file store this agent, always; with etcd the one of the
     * leader-eligible agents that holds the election's lease. One that loses it for good exits, and
     * systemd starts it again as a standby.
     */
    @Produces
    @Singleton
    Leadership leadership(AgentConfig config, Store store) {
        if (!(store instanceof EtcdStore etcd)) {
            return Leadership.SOLE;
        }
        String name = config.node().machineName();
        String host = config.leader().advertisedHost();
        var self = new EtcdElection.Record(
                name,
                "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":"
                        + config.leader().agentPort());
        return etcd.election(self, config.leader().store().etcd().lease(), why -> {
            LOG.fatalf("this agent stops: it lost the lead (%s); systemd starts it again, and it stands by", why);
            Quarkus.asyncExit(EXIT_LOST_LEAD);
        });
    }

    /** The exit code of an agent that lost the lead (systemd's Restart=on-failure starts it again). */
    public static final int EXIT_LOST_LEAD = 75;

    private static final Logger LOG = Logger.getLogger(LeaderState.class);

    void closeLeadership(@Disposes Leadership leadership) {
        if (leadership instanceof EtcdElection election) {
            election.close();
        }
    }

    /** The admin token's file: agent.yaml's, else admin.token in the state folder. */
    static Path adminTokenFile(AgentConfig config) {
        return config.leader().adminTokenFile().orElse(config.stateDir().resolve(TokenFile.FILE_NAME));
    }

    void closeStore(@Disposes Store store) {
        if (store instanceof EtcdStore etcd) {
            etcd.close();
        }
    }

    @Produces
    @Singleton
    SettingsStore settingsStore(Store store) throws IOException {
        return SettingsStore.open(store);
    }

    @Produces
    @Singleton
    Inventory inventory(Store store) throws IOException {
        return Inventory.open(store);
    }

    @Produces
    @Singleton
    TokenFile adminToken(AgentConfig config) throws IOException {
        return TokenFile.loadOrCreate(adminTokenFile(config));
    }

    @Produces
    @Singleton
    JoinTokens joinTokens(AgentConfig config, Store store) throws IOException {
        return JoinTokens.open(store, Clock.systemUTC(), config.stateDir().resolve(TokenFile.JOIN_FILE_NAME));
    }

    @Produces
    @Singleton
    AgentCredentials agentCredentials(Store store) throws IOException {
        return AgentCredentials.open(store);
    }

    @Produces
    @Singleton
    PlanPublisher planPublisher(
            AgentConfig config,
            Store store,
            SettingsStore settings,
            Inventory inventory,
            LendingBook lending,
            AccountsStore accounts,
            ContainerFiles containerFiles,
            MungeKeys mungeKeys,
            SlurmKeys slurmKeys)
            throws IOException {
        ArtifactTable table = artifacts(config);
        String host = config.leader().advertisedHost();
        // The host a person reads in a plan; an agent asks whichever leader it follows for the path.
        String leader = "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":"
                + config.leader().agentPort();
        return new PlanPublisher(
                store,
                settings,
                inventory,
                mungeKeys::current,
                slurmKeys::current,
                PlanBook.open(store),
                lending,
                accounts,
                () -> table.pinned(containerFiles.held(), leader));
    }

    @Produces
    @Singleton
    SettingsAdmission settingsAdmission(
            AgentConfig config,
            Inventory inventory,
            NodeReports reports,
            LendingBook lending,
            ArtifactTable artifacts,
            ContainerFiles containerFiles,
            SlurmKeys slurmKeys) {
        return new SettingsAdmission(
                inventory,
                reports,
                lending,
                artifacts,
                containerFiles,
                config.leader().maxBodyBytes(),
                slurmKeys::state);
    }

    @Produces
    @Singleton
    MungeKeys mungeKeys(AgentConfig config, Store store) throws IOException {
        if (!(store instanceof EtcdStore etcd)) {
            return MungeKeys.open(config.stateDir(), Clock.systemUTC());
        }
        LeaderSecrets secrets = LeaderSecrets.of(
                config.leader().store().etcd().secretsKeyFile().orElseThrow(),
                config.stateDir(),
                adminTokenFile(config));
        return MungeKeys.open(
                config.stateDir(), Clock.systemUTC(), (key, rotation) -> secrets.putMungeRotation(etcd, key, rotation));
    }

    @Produces
    @Singleton
    SlurmKeys slurmKeys(AgentConfig config, Store store) throws IOException {
        if (!(store instanceof EtcdStore etcd)) {
            return SlurmKeys.open(config.stateDir(), Clock.systemUTC());
        }
        LeaderSecrets secrets = LeaderSecrets.of(
                config.leader().store().etcd().secretsKeyFile().orElseThrow(),
                config.stateDir(),
                adminTokenFile(config));
        return SlurmKeys.open(config.stateDir(), Clock.systemUTC(), json -> secrets.putSlurmKeys(etcd, json));
    }

    /**
     * Moves a rotation of Slurm's keys on: started once this agent leads ({@link #driveSlurmKeys}),
     * stopped with the agent.
     */
    @Produces
    @Singleton
    SlurmKeysDriver slurmKeysDriver(
            AgentConfig config, SlurmKeys keys, SettingsStore settings, PlanPublisher publisher, NodeReports reports) {
        SlurmKeysDriver driver = new SlurmKeysDriver(
                keys,
                () -> settings.current().settings(),
                () -> publisher.book().all(),
                reports::observed,
                publisher::nudge,
                config.leader().authKeyMargin(),
                Clock.systemUTC());
        driver.start();
        return driver;
    }

    /** Once this agent leads (at start with the file store; once elected with etcd): a rotation under way goes on. */
    void driveSlurmKeys(@Observes LeaderStartup.Leading leading, SlurmKeysDriver driver) {
        driver.start();
    }

    void closeSlurmKeysDriver(@Disposes SlurmKeysDriver driver) {
        driver.close();
    }

    @Produces
    @Singleton
    ContainerFiles containerFiles(Store store) {
        return ContainerFiles.open(store);
    }

    /**
     * The pinned files of jobs in containers and their mirror, from agent.yaml: a table that cannot
     * be read stops the leader with the reason, as a state directory that cannot be read does.
     */
    @Produces
    @Singleton
    ArtifactTable artifacts(AgentConfig config) throws IOException {
        return ArtifactTable.load(
                config.leader().containers().table(),
                config.leader().containers().mirror());
    }

    void closePlanPublisher(@Disposes PlanPublisher publisher) {
        publisher.close();
    }

    @Produces
    @Singleton
    AccountsStore accountsStore(Store store) throws IOException {
        return AccountsStore.open(store);
    }

    @Produces
    @Singleton
    LendingBook lendingBook(Store store) throws IOException {
        return LendingBook.open(store);
    }

    @Produces
    @Singleton
    LendingEngine lendingEngine(
            AgentConfig config,
            Store store,
            LendingBook book,
            SettingsStore settings,
            Inventory inventory,
            NodeReports reports,
            Leadership leadership) {
        AgentConfig.Platform platform = config.leader().platform();
        LendingEngine engine = new LendingEngine(
                book,
                settings,
                inventory,
                reports,
                new Hooks(
                        new LinuxCommands(), platform.drain(), platform.release(), platform.hookDeadline(), leadership),
                platform.busyRetry(),
                Clock.systemUTC());
        store.watch(key -> {
            if (key.equals(SettingsStore.FILE_NAME)) {
                engine.wake();
            }
        });
        return engine;
    }

    @Produces
    @Singleton
    Pki pki(AgentConfig config) throws IOException {
        return Pki.open(
                config.stateDir().resolve(Pki.DIR),
                Pki.localNames(config.leader().advertise().orElse(List.of())));
    }

    @Produces
    @Singleton
    NodeReports nodeReports() {
        return new NodeReports();
    }
}
