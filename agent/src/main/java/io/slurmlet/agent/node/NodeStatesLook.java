package io.slurmlet.agent.node;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.slurm.NodeStatesStep;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.plan.PublishedPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jboss.logging.Logger;

/**
 * The controller looks at Slurm's node states every 2 s while a node is being reclaimed, they are
 * not as planned, or a job runs, and every 10 s otherwise: the leader's refusals of what would end
 * or lose jobs read its jobs, running and queued, and
 * a job that ended is to leave them within seconds, not at the next pass. A job that starts on an
 * idle cluster is told by its machine's own jobs watch.
 */
final class NodeStatesLook implements PlanPoller.NodeStatesWatch {

    private static final Logger LOG = Logger.getLogger(NodeStatesLook.class);
    /** How often the controller looks at Slurm with nothing to watch: the jobs that only wait in the queue reach the leader within it. */
    static final Duration IDLE_LOOK = Duration.ofSeconds(10);

    private final NodeStatesStep nodeStates;
    private final StepBook book;
    private volatile Instant lastLook = Instant.EPOCH;

    NodeStatesLook(NodeStatesStep nodeStates, StepBook book) {
        this.nodeStates = nodeStates;
        this.book = book;
    }

    @Override
    public boolean watching(PublishedPlan plan) {
        return plan.plan().reclaiming()
                || !nodeStates.asPlanned(plan.plan())
                || nodeStates.nodes().stream().anyMatch(n -> !n.jobs().isEmpty())
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
        synchronized (nodeStates) { // with the pass's own run of it, one at a time
            before = nodeStates.nodes();
            var queuedBefore = nodeStates.queued();
            outcome = nodeStates.apply(plan.plan());
            after = nodeStates.nodes();
            queueChanged = !Objects.equals(queuedBefore, nodeStates.queued());
        }
        book.record(outcome);
        if (outcome.kind() == Outcome.Kind.CHANGED) {
            LOG.infof("%s: %s", outcome.step(), outcome.detail());
        } else if (outcome.failed()) {
            LOG.debugf("%s failed: %s", outcome.step(), outcome.detail()); // every 2 s at most: status says it
        }
        return !before.equals(after) || queueChanged || outcome.kind() != Outcome.Kind.UNCHANGED;
    }
}
