package io.slurmlet.agent.node;

import io.slurmlet.model.api.NodeReport;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Posts the machine's status to the leader on a thread of its own: after a pass, after the reclaim
 * watch saw Slurm's node states change, and at once to a leader that answers again. Only the
 * latest report is sent (it is built when it is sent); one that could not be sent is sent again,
 * after a second, then after longer waits with jitter (up to 10 s), until it is. Neither a pass nor the long poll ever waits for it.
 */
final class StatusPoster extends Worker {

    private static final Logger LOG = Logger.getLogger(StatusPoster.class);

    private final Supplier<Optional<Leader>> leader;
    private final Supplier<Optional<NodeReport>> report;
    private final Duration retry;
    private final LeaderClock clock;
    private static final Duration LONGEST = Duration.ofSeconds(10);
    private Duration wait;
    private boolean due;
    private boolean olderLeaderSaid;

    /**
     * @param leader the link the poller holds now; empty while it has none
     * @param report the report as things stand; empty before the first pass
     * @param clock  told the leader's time of each answer, with the round trip it came over
     */
    StatusPoster(
            Supplier<Optional<Leader>> leader,
            Supplier<Optional<NodeReport>> report,
            Duration retry,
            LeaderClock clock) {
        super("slurmlet-status");
        this.leader = leader;
        this.report = report;
        this.retry = retry;
        this.clock = clock;
        this.wait = retry;
    }

    /** The status changed: the leader is to hear it. */
    synchronized void changed() {
        due = true;
        notifyAll();
    }

    @Override
    protected void loop() {
        while (!stopping) {
            try {
                synchronized (this) {
                    while (!due) {
                        wait();
                    }
                    due = false;
                }
                if (send()) {
                    wait = retry;
                } else {
                    // Many machines lose the same leader at once: they call again apart, less and less often.
                    Thread.sleep(wait.toMillis() + ThreadLocalRandom.current().nextLong(1 + wait.toMillis()));
                    wait = wait.multipliedBy(2).compareTo(LONGEST) > 0 ? LONGEST : wait.multipliedBy(2);
                    changed();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Sends {@code report}, and times the round trip against the leader's clock where its answer says it. */
    private void post(Leader to, NodeReport report) throws IOException, InterruptedException {
        Instant sent = clock.own();
        Optional<Leader.Time> leaderSaid = to.postStatus(report);
        Instant received = clock.own();
        leaderSaid.ifPresent(t -> clock.sample(t.leader(), sent, t.at(), received));
    }

    /** Whether the latest report reached the leader (or there was none to send). */
    private boolean send() throws InterruptedException {
        Optional<NodeReport> now;
        try {
            now = report.get();
        } catch (RuntimeException e) {
            LOG.errorf(e, "the status could not be made (%s): tried again soon", e.getMessage());
            return false;
        }
        if (now.isEmpty()) {
            return true;
        }
        Optional<Leader> to = leader.get();
        if (to.isEmpty()) {
            return false;
        }
        try {
            post(to.get(), now.get());
            return true;
        } catch (LeaderLink.Refused e) {
            NodeReport older = new NodeReport(
                    now.get().node(),
                    now.get().planRevision(),
                    now.get().steps(),
                    now.get().slurmNodes(),
                    now.get().observed().withoutLaterSections());
            if (e.status() != 400 || !e.getMessage().contains("unknown key") || older.equals(now.get())) {
                LOG.debugf("the status was refused (%s): sent again soon", e.getMessage());
                return false;
            }
            // A leader older than this agent's users, packages and slurm sections: it gets the rest.
            try {
                post(to.get(), older);
                if (!olderLeaderSaid) {
                    olderLeaderSaid = true;
                    LOG.warnf(
                            "the leader is older than this agent and takes no users, packages or slurm sections in its status "
                                    + "(upgrade the leader): its dry runs take this machine to hold its plan for them");
                }
                return true;
            } catch (IOException | RuntimeException again) {
                LOG.debugf("the status did not reach the leader (%s): sent again soon", again.getMessage());
                return false;
            }
        } catch (IOException | RuntimeException e) {
            LOG.debugf("the status did not reach the leader (%s): sent again soon", e.getMessage());
            return false;
        }
    }
}
