package io.slurmlet.agent.node;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.LeaderFinder;
import io.slurmlet.agent.trust.LeaderRole;
import io.slurmlet.agent.trust.Pki;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * How this machine comes to hold a joined link to its leader: from the credential on disk, by
 * joining with the join token (whose file then leaves the machine), or on the leader's own machine
 * in-process. A leader-eligible machine on etcd finds the leader through {@link LeaderFinder} and
 * follows whichever agent leads.
 */
@ApplicationScoped
class Joining {

    private static final Logger LOG = Logger.getLogger(Joining.class);

    @Inject
    AgentConfig config;

    @Inject
    Instance<LeaderChannel> leader;

    @Inject
    Instance<AgentCredentials> credentials;

    @Inject
    Instance<Pki> pki;

    @Inject
    Instance<LeaderFinder> finder;

    @Inject
    Instance<LeaderRole> startup;

    /** A joined link: from the state on disk, by joining with the token, or on the leader's own machine in-process. */
    LeaderLink connect(String name, NodeState state)
            throws IOException, InterruptedException, GeneralSecurityException {
        List<URI> bases;
        boolean ownLeader = config.isLeader() && config.node().leader().isEmpty();
        if (ownLeader && finder.get().elected()) {
            return leaderEligible(name, state);
        }
        if (ownLeader) {
            int port = leader.get().agentPort();
            if (port == 0) {
                throw new IOException("the leader's agents' channel is not open yet");
            }
            bases = List.of(URI.create("https://127.0.0.1:" + port));
        } else {
            // One leader's address, or every leader-eligible agent's (comma-separated): the link follows whichever
            // leads.
            bases = LeaderLink.addresses(config.node()
                    .leader()
                    .orElseThrow(() -> new IOException(
                            "this machine has no leader to join: set slurmlet.node.leader, slurmlet.node.join-token and "
                                    + "slurmlet.node.ca-hash (ctl slurm join-token on the leader prints them)")));
        }
        Optional<NodeState.Joined> joined = state.joined();
        if (joined.isPresent()) {
            // A token left from before (a join.env of an older version, moved by the launcher) is not needed here
            // either.
            forgetJoinToken(config.node().joinTokenFile(), true);
            return new LeaderLink(bases, joined.get().ca(), joined.get().credential());
        }
        if (ownLeader) {
            joinOwnLeader(name, state);
        } else {
            joinWithToken(name, state, bases);
        }
        NodeState.Joined now = state.joined().orElseThrow();
        return new LeaderLink(bases, now.ca(), now.credential());
    }

    /** On the leader's own machine: a credential issued in-process, no token. */
    private void joinOwnLeader(String name, NodeState state) throws IOException, GeneralSecurityException {
        String credential = credentials.get().issue(name);
        state.saveJoined(Pki.readCertificate(pki.get().caFile()), credential);
        LOG.infof("%s joined its own leader", name);
    }

    /** Joins through whichever of {@code bases} leads, with the join token and the CA pin of agent.yaml. */
    private void joinWithToken(String name, NodeState state, List<URI> bases)
            throws IOException, InterruptedException, GeneralSecurityException {
        Path tokenFile = config.node().joinTokenFile();
        Optional<String> fromFile = JoinTokenFile.read(tokenFile);
        String token = fromFile.or(() -> config.node().joinToken())
                .orElseThrow(() -> new IOException(
                        "this machine has not joined yet and has no join token: run the line 'ctl slurm join-token' prints on the leader "
                                + "(it writes %s), or set slurmlet.node.join-token".formatted(tokenFile)));
        String hash = config.node()
                .caHash()
                .orElseThrow(
                        () -> new IOException(
                                "this machine has not joined yet and no CA pin is set: set slurmlet.node.ca-hash (ctl slurm join-token on the leader prints it)"));
        IOException unreachable = null;
        for (URI base : bases) {
            // Joining works through whichever leads; a standby opens no agents' channel.
            try {
                var ca = LeaderJoin.fetchPinnedCa(base, hash);
                var reply = LeaderJoin.join(base, ca, token, name);
                state.saveJoined(ca, reply.credential());
                LOG.infof("%s joined the leader at %s (CA %s)", name, base, hash);
                forgetJoinToken(tokenFile, fromFile.isPresent());
                return;
            } catch (LeaderLink.Refused e) {
                throw e;
            } catch (IOException e) {
                unreachable = e;
            }
        }
        if (unreachable != null) {
            throw unreachable;
        }
    }

    /**
     * Once the machine holds its credential, the join token leaves it: its file is removed, so that
     * nothing on a joined machine (a user who finds a way to read root's files later, a disk handed
     * on) can join another machine with it. One in agent.yaml is the site's file: said, not changed.
     */
    private void forgetJoinToken(Path tokenFile, boolean fromFile) {
        try {
            if (fromFile && JoinTokenFile.forget(tokenFile)) {
                LOG.infof(
                        "the join token is removed from this machine (%s): it holds its own credential now", tokenFile);
            }
        } catch (IOException e) {
            LOG.warnf(
                    "the join token could not be removed from %s (%s): remove it by hand, the machine has joined",
                    tokenFile, e.getMessage());
        }
        if (config.node().joinToken().isPresent()) {
            LOG.warn(
                    "this machine has joined: remove slurmlet.node.join-token from agent.yaml, it is no longer needed here");
        }
    }

    /**
     * Where a leader-eligible machine's node role finds the leader: its own agent's channel while that
     * agent leads and serves, else the channel of {@code other}, the agent that the election names
     * ({@link LeaderFinder#leaderOtherThan}), unless it has no port; none while no leader is known.
     */
    static List<URI> leaderEligibleBases(boolean serving, int ownPort, Optional<URI> other) {
        if (serving && ownPort != 0) {
            return List.of(URI.create("https://127.0.0.1:" + ownPort));
        }
        return other.filter(u -> u.getPort() > 0).map(List::of).orElse(List.of());
    }

    /**
     * The node role of a leader-eligible agent on etcd with no {@code slurmlet.node.leader}: it follows
     * whichever agent leads ({@link #leaderEligibleBases}, asked again at each call, so a failover
     * needs nothing of it). It joins in-process while its own agent leads; on a standby, through the
     * leader, with a join token it asks the leader for with a credential of its own that it makes with
     * the cluster's CA (which the standby reads from etcd, sealed). Its credential is in the cluster's store, so it holds
     * whoever leads.
     */
    private LeaderLink leaderEligible(String name, NodeState state)
            throws IOException, InterruptedException, GeneralSecurityException {
        Supplier<List<URI>> bases = () -> leaderEligibleBases(
                startup.get().serving(), leader.get().agentPort(), finder.get().leaderOtherThan(name));
        if (state.joined().isEmpty()) {
            if (startup.get().serving() && leader.get().agentPort() != 0) {
                joinOwnLeader(name, state);
            } else {
                List<URI> now = bases.get();
                if (now.isEmpty()) {
                    throw new IOException(
                            "no leader is known yet: this leader-eligible machine joins once the election names one");
                }
                var keys = startup.get()
                        .clusterKeys()
                        .orElseThrow(
                                () -> new IOException(
                                        "the cluster's secrets are not in etcd yet (the first leader seals them there): this machine joins once they are"));
                X509Certificate ca = Pki.parseCertificate(keys.caPem());
                String token = LeaderJoin.joinTokenFromLeader(
                        now.get(0), ca, keys.standby(name, Duration.ofMinutes(10)), name);
                state.saveJoined(
                        ca, LeaderJoin.join(now.get(0), ca, token, name).credential());
                LOG.infof(
                        "%s joined the leader at %s from its standby agent, with a join token it asked for with its own "
                                + "standby credential of the cluster's CA",
                        name, now.get(0));
            }
        }
        NodeState.Joined joined = state.joined().orElseThrow();
        return new LeaderLink(bases, joined.ca(), joined.credential());
    }
}
