package io.slurmlet.agent.node;

import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jboss.logging.Logger;

/**
 * The node role's side of the leader: joins once, reports the machine's facts, long-polls its plan
 * and hands each new one to the {@link StepRunner}; on the controller, while a node is being
 * reclaimed, looks at Slurm's node states every 2 s. It never waits for a pass to end (at most for
 * the node-states step, which a pass and the poller run one at a time). With the leader
 * unreachable the machine stays as its last plan has it (the runner's resync repairs only what
 * drifted from that plan) and nothing new is applied; before the leader first answered, no plan
 * is applied at all, not even the one on disk. A 401 means the leader
 * no longer knows this machine's credential: it is forgotten, and the machine joins again. A
 * refusal that says when to call again (a 429 with Retry-After: facts that changed too often) is
 * waited out, and the facts then reported are the machine's as they are then.
 */
final class PlanPoller {

    private static final Logger LOG = Logger.getLogger(PlanPoller.class);
    /** How often the controller looks at Slurm's node states while a node is being reclaimed (its last job may end any time). */
    static final Duration RECLAIM_WATCH = Duration.ofSeconds(2);
    /** Retries of an unreachable leader back off to this. */
    private static final Duration LONGEST_BACKOFF = Duration.ofSeconds(10);

    /** A joined link to the leader, and forgetting it. */
    interface Connector {
        /** A link with this machine's credential: from the state on disk, or by joining. */
        Leader connect() throws IOException, InterruptedException, GeneralSecurityException;

        /** The leader refused the credential: forget it, so that the next connect joins again. */
        void forget() throws IOException;
    }

    /**
     * The controller's node-states step run beside the passes: every 2 s while a node is being
     * reclaimed or Slurm's states are not yet as planned (slurmd not registered yet, a reason Slurm
     * kept), and at once for a plan that changes node states alone (a lend, an unlend).
     */
    interface NodeStatesWatch {
        boolean watching(PublishedPlan plan);

        /** How long a poll may wait while not {@link #watching}: the controller looks now and then even with nothing to watch. */
        default Duration idleWait(PublishedPlan plan, Duration pollWait) {
            return pollWait;
        }

        /** Runs the node-states step once; whether what the leader was told changed. */
        boolean look(PublishedPlan plan);
    }

    private final Connector connector;
    private final NodeState state;
    private final FactsStep facts;
    private final StepBook book;
    private final StepRunner runner;
    private final StatusPoster poster;
    private final NodeStatesWatch watch;
    private final Duration pollWait;
    private final Duration firstBackoff;
    private volatile Leader link;
    /** The reconnection window the leader gave last ({@link Leader#reconnectWindow()}), kept while it is away. */
    private volatile Duration window = Duration.ZERO;
    /** The window on disk (what {@link NodeState#reconnectWindow()} reads); a failed write is tried again at the next answer. */
    private Duration kept;
    /** Whether the last call to the leader failed: the next failure is not the first after losing it. */
    private boolean away;

    private volatile boolean stopping;
    private final RandomGenerator random;

    private PlanPoller(Builder b) {
        this.connector = Objects.requireNonNull(b.connector, "connector");
        this.state = Objects.requireNonNull(b.state, "state");
        this.facts = Objects.requireNonNull(b.facts, "facts");
        this.book = Objects.requireNonNull(b.book, "book");
        this.runner = Objects.requireNonNull(b.runner, "runner");
        this.poster = Objects.requireNonNull(b.poster, "poster");
        this.watch = Objects.requireNonNull(b.watch, "watch");
        this.pollWait = b.pollWait;
        this.firstBackoff = b.firstBackoff;
        this.random = b.random;
    }

    static Builder builder() {
        return new Builder();
    }

    /** The poller's parts, each named where it is made (the node role's, or a test's fakes). */
    static final class Builder {
        private Connector connector;
        private NodeState state;
        private FactsStep facts;
        private StepBook book;
        private StepRunner runner;
        private StatusPoster poster;
        private NodeStatesWatch watch;
        private Duration pollWait = Duration.ofSeconds(30);
        private Duration firstBackoff = Duration.ofSeconds(1);
        private RandomGenerator random;

        private Builder() {}

        /** Joins, and forgets the credential the leader refused. */
        Builder connector(Connector connector) {
            this.connector = connector;
            return this;
        }

        /** Where the plan and the reconnection window are kept between starts. */
        Builder state(NodeState state) {
            this.state = state;
            return this;
        }

        /** The machine's facts, reported before every poll. */
        Builder facts(FactsStep facts) {
            this.facts = facts;
            return this;
        }

        Builder book(StepBook book) {
            this.book = book;
            return this;
        }

        /** Where each new plan is offered. */
        Builder runner(StepRunner runner) {
            this.runner = runner;
            return this;
        }

        /** Told when what the leader hears of this machine changed. */
        Builder poster(StatusPoster poster) {
            this.poster = poster;
            return this;
        }

        /** The controller's look at Slurm's node states between passes. */
        Builder watch(NodeStatesWatch watch) {
            this.watch = watch;
            return this;
        }

        /** How long the leader may hold a poll ({@code slurmlet.node.poll-wait}); 30 s unless said. */
        Builder pollWait(Duration pollWait) {
            this.pollWait = pollWait;
            return this;
        }

        /** The first wait after a failed call, doubling to 10 s; 1 s unless said. */
        Builder firstBackoff(Duration firstBackoff) {
            this.firstBackoff = firstBackoff;
            return this;
        }

        /**
         * Where the moments of calls to a leader that is away are drawn from; unset: the polling
         * thread's own {@code ThreadLocalRandom}, asked for where it is used (one taken on another
         * thread would draw from a seed every machine shares).
         */
        Builder random(RandomGenerator random) {
            this.random = random;
            return this;
        }

        PlanPoller build() {
            return new PlanPoller(this);
        }
    }

    /** The link held now; empty while the machine has not joined or the leader refused it. */
    Optional<Leader> link() {
        return Optional.ofNullable(link);
    }

    void stop() {
        stopping = true;
    }

    /** Until stopped or interrupted. */
    void run() {
        window = savedWindow();
        kept = window;
        Duration backoff = firstBackoff;
        String lastProblem = "";
        boolean planOnDiskOffered = false;
        while (!stopping) {
            try {
                if (link == null) {
                    link = connector.connect();
                    facts.forget();
                }
                book.record(facts.report(link));
                if (!planOnDiskOffered) {
                    // The last plan applies again only once the leader answered: never while it is away.
                    offerPlanOnDisk();
                    planOnDiskOffered = true;
                }
                if (!lastProblem.isEmpty()) {
                    // A leader that was away (restarted, perhaps) learns at once how this machine stands.
                    LOG.infof("the leader answers again");
                    lastProblem = "";
                    poster.changed();
                }
                Optional<PublishedPlan> plan = runner.plan();
                boolean watching = plan.isPresent() && runner.applied().isPresent() && watch.watching(plan.get());
                if (watching && watch.look(plan.get())) {
                    poster.changed();
                }
                Optional<PublishedPlan> next = link.poll(
                        plan,
                        watching
                                ? RECLAIM_WATCH
                                : plan.map(p -> watch.idleWait(p, pollWait)).orElse(pollWait));
                if (next.isPresent()) {
                    // Another revision is applied at once, even with the same content (a leader
                    // that was not told this plan's digest numbers it anew): applying it again
                    // changes nothing.
                    facts.planned(next.get().plan());
                    state.savePlan(next.get());
                    Optional<PublishedPlan> applied = runner.applied();
                    runner.offer(next.get());
                    if (applied.isPresent()
                            && applied.get().onlyNodeStatesChangeTo(next.get())
                            && watch.look(next.get())) {
                        // A lend: the node is resumed now, not after the pass's other steps.
                        poster.changed();
                    }
                }
                keepWindow(link.reconnectWindow());
                away = false;
                backoff = firstBackoff;
            } catch (InterruptedException e) {
                return;
            } catch (LeaderLink.Refused e) {
                if (e.status() == 401 && link != null) {
                    try {
                        connector.forget();
                    } catch (IOException ignored) {
                        // the next join overwrites it
                    }
                    link = null;
                }
                lastProblem = problem(e.getMessage(), lastProblem);
                if (e.retryAfter().isPresent()) {
                    // The leader is there and said when (facts that change too often): then, not at the backoff.
                    pause(e.retryAfter().get());
                } else {
                    backoff = sleep(backoff);
                }
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                lastProblem = problem(e.getMessage() == null ? e.toString() : e.getMessage(), lastProblem);
                backoff = sleep(backoff);
            }
        }
    }

    /**
     * The window the leader gave before this agent started: its first call goes at once (a machine
     * that restarts alone is back in a moment), and if the leader is away too (a whole site powered
     * on at once), the calls after it are spread over the window as after losing it.
     */
    private Duration savedWindow() {
        try {
            return state.reconnectWindow();
        } catch (IOException e) {
            LOG.warnf(
                    "the leader's last reconnection window cannot be read (%s): none until it answers", e.getMessage());
            return Duration.ZERO;
        }
    }

    /** Takes the window of the leader's latest answer, and keeps it on disk when it differs from the one there. */
    private void keepWindow(Duration given) {
        window = given;
        if (given.equals(kept)) {
            return;
        }
        try {
            state.saveReconnectWindow(given);
            kept = given;
        } catch (IOException e) {
            LOG.warnf(
                    "the leader's reconnection window of %d s cannot be kept (%s): an agent started while the leader is away "
                            + "calls it after its backoff alone",
                    given.toSeconds(), e.getMessage());
        }
    }

    private void offerPlanOnDisk() {
        try {
            state.plan().ifPresent(runner::offer);
        } catch (IOException e) {
            LOG.warnf("the last plan on disk cannot be read (%s): waiting for the leader's", e.getMessage());
        }
    }

    /** Logs a problem with the leader once, not at every retry. */
    private static String problem(String problem, String last) {
        if (!problem.equals(last)) {
            LOG.warnf("%s; this machine stays as its last plan has it until the leader answers", problem);
        }
        return problem;
    }

    /** Waits {@code asked} (a leader's Retry-After, at most {@link LeaderCalls#LONGEST_WINDOW}) before the next call. */
    private void pause(Duration asked) {
        try {
            Thread.sleep(asked.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }

    /** Waits before the next call after a failed one ({@link #wait}): the first failure since the leader answered is its loss. */
    private Duration sleep(Duration backoff) {
        boolean lost = !away;
        away = true;
        try {
            Thread.sleep(wait(lost, backoff, window, random != null ? random : ThreadLocalRandom.current())
                    .toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
        Duration next = backoff.multipliedBy(2);
        return next.compareTo(LONGEST_BACKOFF) > 0 ? LONGEST_BACKOFF : next;
    }

    /**
     * How long to wait before calling the leader again. The first call after the leader was lost
     * (restarted, its machine gone, another elected) comes at a random moment of the window the
     * leader gave (its machines at its reconnect rate; at least the first backoff), so the machines
     * of a large cluster come back spread over it rather than all in one second, each with a TLS
     * handshake the leader pays for. Each later call, while it stays away, comes at a random moment
     * between the backoff (doubling to 10 s) and the window, so a leader away longer than the window
     * is still called at its rate, not every machine every 10 to 20 s; in a cluster whose window is
     * shorter than that, the backoff and up to a second more.
     */
    static Duration wait(boolean lost, Duration backoff, Duration window, RandomGenerator random) {
        if (lost) {
            return Duration.ofMillis(random.nextLong(Math.max(backoff.toMillis(), window.toMillis()) + 1));
        }
        long latest = Math.max(window.toMillis(), backoff.toMillis() + Math.min(1000, backoff.toMillis()));
        return backoff.plusMillis(random.nextLong(latest - backoff.toMillis() + 1));
    }
}
