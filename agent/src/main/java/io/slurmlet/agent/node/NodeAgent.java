package io.slurmlet.agent.node;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.plan.PublishedPlan;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The node role, on every machine: its parts wired and started. The {@link PlanPoller} joins the
 * leader once ({@link Joining}), reports the machine's facts and long-polls its plan; the {@link StepRunner} applies
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

    @Inject
    AgentConfig config;

    @Inject
    Ports ports;

    @Inject
    Joining joining;

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
    /** The leader's clock, as the status reports' round trips measure it: what a munge key's switch waits by. */
    private final LeaderClock leaderClock = new LeaderClock(Clock.systemUTC());

    @PostConstruct
    void wire() {
        name = config.node().machineName();
        wiring = NodeWiring.of(ports, config, name, leaderClock, (path, timeout) -> {
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
        poster = new StatusPoster(() -> poller.link(), () -> report(wiring), Duration.ofSeconds(1), leaderClock);
        jobs = new JobsWatch(
                wiring.hostFiles(),
                () -> {
                    poster.changed();
                    runner.jobsChanged();
                },
                Duration.ofSeconds(2));
        // A slurm step held back by a plugin the plan requires and the machine lacks has not made the daemons the
        // plan's.
        daemons = new DaemonWatch(
                wiring.services(),
                () -> wiring.daemonsHeldBack() ? List.of() : watched(runner),
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
                return joining.connect(name, state);
            }

            @Override
            public void forget() throws IOException {
                state.forgetCredential();
            }
        };
        poller = PlanPoller.builder()
                .connector(connector)
                .state(state)
                .facts(wiring.facts())
                .book(book)
                .runner(runner)
                .poster(poster)
                .watch(new NodeStatesLook(wiring.nodeStates(), book))
                .pollWait(config.node().pollWait())
                .firstBackoff(Duration.ofSeconds(1))
                .build();
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
                wiring.observed(jobs == null ? List.of() : jobs.jobs())
                        .withClock(leaderClock.seen().orElse(null))));
    }
}
