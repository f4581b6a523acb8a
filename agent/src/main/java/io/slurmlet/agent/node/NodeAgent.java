package io.slurmlet.agent.node;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.agent.store.EtcdElection;
import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.LeaderRole;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.plan.PublishedPlan;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The node role, on every machine: its parts wired and started. The {@link PlanPoller} joins the
 * leader once, reports the machine's facts and long-polls its plan; the {@link StepRunner} applies
 * it through the steps ({@link NodeWiring}) on a thread of its own; the {@link StatusPoster} tells
 * the leader what each step did. A new plan is applied at once; the same plan again every
 * {@code slurmlet.node.resync}, which repairs what drifted (a daemon someone stopped).
 */
@ApplicationScoped
public class NodeAgent {

    private static final Logger LOG = Logger.getLogger(NodeAgent.class);
    /** The daemons the daemon watch keeps running: Slurm's and munge. */
    static final Set<String> DAEMONS = Set.of("munge", "slurmctld", "slurmd");

    /**
     * The daemons the daemon watch keeps: those of the plan last applied, but none the newest plan
     * retires (a pass stopping it is no daemon down).
     */
    static List<String> watched(StepRunner runner) {
        List<String> retiring =
                runner.plan().map(p -> p.plan().slurm().retired()).orElse(List.of());
        return runner.applied()
                .map(p -> p.plan().slurm().services().stream()
                        .filter(DAEMONS::contains)
                        .filter(unit -> !retiring.contains(unit))
                        .toList())
                .orElse(List.of());
    }
    /** The steps that start and restart them: the watch starts none while one of these runs. */
    static final Set<String> STARTS_DAEMONS = Set.of("munge", "slurm");
    /** How often the controller looks at Slurm with nothing to watch: the jobs that only wait in the queue reach the leader within it. */
    static final Duration IDLE_LOOK = Duration.ofSeconds(10);

    @Inject
    AgentConfig config;

    @Inject
    Instance<LeaderChannel> leader;

    @Inject
    Instance<AgentCredentials> credentials;

    @Inject
    Instance<Pki> pki;

    @Inject
    Instance<Leadership> leadership;

    @Inject
    Instance<LeaderRole> startup;

    private StepBook book;
    private volatile Thread thread;
    private volatile boolean stopping;
    private volatile StepRunner runner;
    private volatile StatusPoster poster;
    private volatile PlanPoller poller;
    private volatile JobsWatch jobs;
    private volatile DaemonWatch daemons;

    private String name;
    private NodeWiring wiring;

    @PostConstruct
    void wire() {
        name = config.node().machineName();
        wiring = NodeWiring.of(NodeWiring.Ports.linux(), config, name, (path, timeout) -> {
            PlanPoller p = poller;
            Leader link = p == null ? null : p.link().orElse(null);
            if (link == null) {
                throw new IOException("this machine has not reached its leader yet");
            }
            return link.open(path, timeout);
        });
        book = new StepBook(wiring.names());
    }

    void start(@Observes StartupEvent event) {
        if (!config.node().enabled()) {
            return;
        }
        thread = new Thread(() -> run(name, wiring), "slurmlet-node");
        thread.setDaemon(true);
        thread.start();
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        PlanPoller p = poller;
        if (p != null) {
            p.stop();
        }
        if (runner != null) {
            runner.stop();
        }
        if (poster != null) {
            poster.stop();
        }
        if (jobs != null) {
            jobs.stop();
        }
        if (daemons != null) {
            daemons.stop();
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** The steps' names, facts first, in the order they run: one health check each. */
    public List<String> steps() {
        return book.names();
    }

    /** Each step's last outcome; empty for a step that has not run. */
    public Optional<StepStatus> step(String name) {
        return book.get(name);
    }

    public boolean enabled() {
        return config.node().enabled();
    }

    /** How many reconcile passes ran since start, for tests and figures. */
    public long passes() {
        StepRunner r = runner;
        return r == null ? 0 : r.passes();
    }

    private void run(String name, NodeWiring wiring) {
        NodeState state = openState();
        if (state == null) {
            return;
        }
        runner = new StepRunner(wiring.steps(), book, config.node().resync(), () -> poster.changed());
        poster = new StatusPoster(() -> poller.link(), () -> report(wiring), Duration.ofSeconds(1));
        jobs = new JobsWatch(
                wiring.hostFiles(),
                () -> {
                    poster.changed();
                    runner.jobsChanged();
                },
                Duration.ofSeconds(2));
        SlurmStep slurm = wiring.steps().stream()
                .filter(SlurmStep.class::isInstance)
                .map(SlurmStep.class::cast)
                .findFirst()
                .orElse(null);
        // A slurm step held back by a plugin the plan requires and the machine lacks has not made the daemons the
        // plan's.
        daemons = new DaemonWatch(
                wiring.services(),
                () -> slurm != null && slurm.waitsForPlugins() ? List.of() : watched(runner),
                () -> STARTS_DAEMONS.contains(runner.running()),
                outcome -> {
                    book.record(outcome);
                    poster.changed();
                },
                Clock.systemUTC(),
                Duration.ofSeconds(1));
        PlanPoller.Connector connector = new PlanPoller.Connector() {
            @Override
            public Leader connect() throws IOException, InterruptedException, GeneralSecurityException {
                return NodeAgent.this.connect(name, state);
            }

            @Override
            public void forget() throws IOException {
                state.forgetCredential();
            }
        };
        poller = new PlanPoller(
                connector,
                state,
                wiring.facts(),
                book,
                runner,
                poster,
                nodeStatesWatch(wiring),
                config.node().pollWait(),
                Duration.ofSeconds(1));
        if (stopping) {
            return;
        }
        runner.start();
        poster.start();
        jobs.start();
        daemons.start();
        poller.run();
    }

    private NodeState openState() {
        Duration backoff = Duration.ofSeconds(1);
        String last = "";
        while (!stopping) {
            try {
                return NodeState.open(config.stateDir());
            } catch (IOException e) {
                String problem =
                        "the node role cannot open its state in %s (%s)".formatted(config.stateDir(), e.getMessage());
                if (!problem.equals(last)) {
                    LOG.warn(problem);
                    last = problem;
                }
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException interrupted) {
                    return null;
                }
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(10)) > 0
                        ? Duration.ofSeconds(10)
                        : backoff.multipliedBy(2);
            }
        }
        return null;
    }

    /** What the leader is told: every step's last outcome, what the steps saw, Slurm's node states; nothing before the first pass. */
    private Optional<NodeReport> report(NodeWiring wiring) {
        Optional<PublishedPlan> plan = runner.applied();
        return plan.map(p -> new NodeReport(
                p.plan().node(),
                p.revision(),
                book.all(),
                wiring.nodeStates().nodes(),
                wiring.observed(jobs == null ? List.of() : jobs.jobs())));
    }

    /**
     * The controller looks at Slurm's node states every 2 s while a node is being reclaimed, they are
     * not as planned, or a job runs, and every 10 s otherwise: the leader's refusals of what would end
     * or lose jobs read its jobs, running and queued, and
     * a job that ended is to leave them within seconds, not at the next pass. A job that starts on an
     * idle cluster is told by its machine's own jobs watch.
     */
    private PlanPoller.NodeStatesWatch nodeStatesWatch(NodeWiring wiring) {
        return new PlanPoller.NodeStatesWatch() {
            private volatile Instant lastLook = Instant.EPOCH;

            @Override
            public boolean watching(PublishedPlan plan) {
                return plan.plan().reclaiming()
                        || !wiring.nodeStates().asPlanned(plan.plan())
                        || wiring.nodeStates().nodes().stream()
                                .anyMatch(n -> !n.jobs().isEmpty())
                        || !plan.plan().nodeStates().isEmpty()
                                && !lastLook.isAfter(Instant.now().minus(IDLE_LOOK));
            }

            @Override
            public Duration idleWait(PublishedPlan plan, Duration pollWait) {
                return plan.plan().nodeStates().isEmpty() || pollWait.compareTo(IDLE_LOOK) < 0 ? pollWait : IDLE_LOOK;
            }

            @Override
            public boolean look(PublishedPlan plan) {
                List<SlurmNodeState> before;
                Outcome outcome;
                List<SlurmNodeState> after;
                boolean queueChanged;
                lastLook = Instant.now();
                synchronized (wiring.nodeStates()) { // with the pass's own run of it, one at a time
                    before = wiring.nodeStates().nodes();
                    var queuedBefore = wiring.nodeStates().queued();
                    outcome = wiring.nodeStates().apply(plan.plan());
                    after = wiring.nodeStates().nodes();
                    queueChanged =
                            !Objects.equals(queuedBefore, wiring.nodeStates().queued());
                }
                book.record(outcome);
                if (outcome.kind() == Outcome.Kind.CHANGED) {
                    LOG.infof("%s: %s", outcome.step(), outcome.detail());
                } else if (outcome.failed()) {
                    LOG.debugf("%s failed: %s", outcome.step(), outcome.detail()); // every 2 s at most: status says it
                }
                return !before.equals(after) || queueChanged || outcome.kind() != Outcome.Kind.UNCHANGED;
            }
        };
    }

    /** A joined link: from the state on disk, by joining with the token, or on the leader's own machine in-process. */
    private LeaderLink connect(String name, NodeState state)
            throws IOException, InterruptedException, GeneralSecurityException {
        List<URI> bases;
        boolean ownLeader = config.isLeader() && config.node().leader().isEmpty();
        if (ownLeader && leadership.get() instanceof EtcdElection election) {
            return leaderEligible(name, state, election);
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
            String credential = credentials.get().issue(name);
            state.saveJoined(Pki.readCertificate(pki.get().caFile()), credential);
            LOG.infof("%s joined its own leader", name);
        } else {
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
                    var ca = LeaderLink.fetchPinnedCa(base, hash);
                    var reply = LeaderLink.join(base, ca, token, name);
                    state.saveJoined(ca, reply.credential());
                    LOG.infof("%s joined the leader at %s (CA %s)", name, base, hash);
                    forgetJoinToken(tokenFile, fromFile.isPresent());
                    unreachable = null;
                    break;
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
        NodeState.Joined now = state.joined().orElseThrow();
        return new LeaderLink(bases, now.ca(), now.credential());
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
     * agent leads and serves, else the channel of {@code other}, the record of another agent that the
     * election names ({@link io.slurmlet.agent.store.EtcdElection#seenOther}), unless it has no port;
     * none while no leader is known.
     */
    static List<URI> leaderEligibleBases(boolean serving, int ownPort, Optional<EtcdElection.Record> other) {
        if (serving && ownPort != 0) {
            return List.of(URI.create("https://127.0.0.1:" + ownPort));
        }
        return other.map(r -> URI.create(r.agents()))
                .filter(u -> u.getPort() > 0)
                .map(List::of)
                .orElse(List.of());
    }

    /**
     * The node role of a leader-eligible agent on etcd with no {@code slurmlet.node.leader}: it follows
     * whichever agent leads ({@link #leaderEligibleBases}, asked again at each call, so a failover
     * needs nothing of it). It joins in-process while its own agent leads; on a standby, through the
     * leader, with a join token it asks the leader for with a credential of its own that it makes with
     * the cluster's CA (which the standby reads from etcd, sealed). Its credential is in the cluster's store, so it holds
     * whoever leads.
     */
    private LeaderLink leaderEligible(String name, NodeState state, EtcdElection election)
            throws IOException, InterruptedException, GeneralSecurityException {
        Supplier<List<URI>> bases =
                () -> leaderEligibleBases(startup.get().serving(), leader.get().agentPort(), election.seenOther(name));
        if (state.joined().isEmpty()) {
            if (startup.get().serving() && leader.get().agentPort() != 0) {
                String credential = credentials.get().issue(name);
                state.saveJoined(Pki.readCertificate(pki.get().caFile()), credential);
                LOG.infof("%s joined its own leader", name);
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
                String token = LeaderLink.joinTokenFromLeader(
                        now.get(0), ca, keys.standby(name, Duration.ofMinutes(10)), name);
                state.saveJoined(
                        ca, LeaderLink.join(now.get(0), ca, token, name).credential());
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
