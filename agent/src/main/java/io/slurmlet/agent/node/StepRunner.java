package io.slurmlet.agent.node;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PublishedPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Applies the plan through the steps, on a thread of its own, so that a long step (a 15-minute
 * {@code apt-get install}) stops neither the poll, nor the status posts, nor the controller's
 * reclaim watch. A new plan is applied at once; the same plan again at the resync, which repairs
 * what drifted; after a pass with a failed or a waiting step again in 5 s, doubling up to the
 * resync, and at once when the jobs on the machine change while a step waits. A step that throws
 * is failed, and the next step still runs.
 */
final class StepRunner extends Worker {

    private static final Logger LOG = Logger.getLogger(StepRunner.class);
    static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(5);

    private final List<Step> steps;
    private final StepBook book;
    private final Duration resync;
    private final Runnable afterPass;

    private PublishedPlan offered;
    private PublishedPlan applied;
    private boolean fresh;
    private Instant lastPass = Instant.EPOCH;
    private int failedPasses;
    private int waitingPasses;
    private volatile long passes;
    private volatile boolean passing;
    private volatile String running = "";

    /** @param afterPass told after every pass (the status poster) */
    StepRunner(List<Step> steps, StepBook book, Duration resync, Runnable afterPass) {
        super("slurmlet-steps");
        this.steps = List.copyOf(steps);
        this.book = book;
        this.resync = resync;
        this.afterPass = afterPass;
    }

    /** The plan to apply from now on: at once if it is not the one held (another revision, or other content). */
    synchronized void offer(PublishedPlan plan) {
        if (!plan.equals(offered)) {
            offered = plan;
            fresh = true;
            notifyAll();
        }
    }

    /** The plan passes apply now; empty before the first. */
    synchronized Optional<PublishedPlan> plan() {
        return Optional.ofNullable(offered);
    }

    /** The plan of the last pass; empty before the first. */
    synchronized Optional<PublishedPlan> applied() {
        return Optional.ofNullable(applied);
    }

    long passes() {
        return passes;
    }

    /** The plan a pass is due for at {@code now}, if one is. */
    synchronized Optional<PublishedPlan> due(Instant now) {
        if (offered == null) {
            return Optional.empty();
        }
        return fresh || !now.isBefore(nextPassAt()) ? Optional.of(offered) : Optional.empty();
    }

    /** When the same plan is due again: the retry after failed or waiting passes, else the resync. */
    private Instant nextPassAt() {
        return lastPass.plus(nextPassIn(Math.max(failedPasses, waitingPasses), resync));
    }

    /**
     * The jobs on this machine changed: where the last pass had a step waiting (for jobs to end, or
     * for another machine), the next pass comes at once rather than at its retry.
     */
    synchronized void jobsChanged() {
        if (waitingPasses > 0 && offered != null) {
            fresh = true;
            notifyAll();
        }
    }

    /**
     * When the next pass is due without a new plan: after {@code failedPasses} passes in a row with a
     * failed or a waiting step (a daemon that did not start, a mount that waits for its server's
     * export) again in 5 s, doubling up to the resync interval; else at the resync interval.
     */
    static Duration nextPassIn(int failedPasses, Duration resync) {
        if (failedPasses == 0) {
            return resync;
        }
        Duration retry = RETRY_AFTER_FAILURE.multipliedBy(1L << Math.min(failedPasses - 1, 10));
        return retry.compareTo(resync) < 0 ? retry : resync;
    }

    /** One pass of every step over {@code plan}, each outcome recorded; then {@code afterPass}. */
    void pass(PublishedPlan plan) {
        synchronized (this) {
            if (plan.equals(offered)) {
                fresh = false;
            }
        }
        long started = System.nanoTime();
        List<String> changed = new ArrayList<>();
        passing = true;
        try {
            runSteps(plan, changed);
        } finally {
            passing = false;
        }
        logPass(plan, changed, (System.nanoTime() - started) / 1_000_000);
        finished(plan, changed, steps.stream().anyMatch(s -> !s.waiting().isEmpty()));
    }

    /** Every step over {@code plan} (a newest-plan-only step over the newest plan), each outcome recorded. */
    private void runSteps(PublishedPlan plan, List<String> changed) {
        for (Step step : steps) {
            NodePlan wanted = plan.plan();
            if (step.newestPlanOnly()) {
                PublishedPlan newest = plan().orElse(plan);
                if (!newest.equals(plan)) {
                    if (!plan.onlyNodeStatesChangeTo(newest)) {
                        continue; // the newest plan's own pass comes next and runs it
                    }
                    wanted = newest.plan(); // never an older wish over what the poller applied
                }
            }
            Outcome outcome;
            running = step.name();
            try {
                outcome = step.apply(wanted);
            } catch (RuntimeException e) {
                outcome = Outcome.failed(step.name(), "the step failed unexpectedly: " + e);
            } finally {
                running = "";
            }
            book.record(outcome);
            if (outcome.kind() != Outcome.Kind.UNCHANGED) {
                changed.add(outcome.step() + " " + outcome.kind().name().toLowerCase(Locale.ROOT));
            }
            switch (outcome.kind()) {
                case CHANGED -> LOG.infof("%s: %s", outcome.step(), outcome.detail());
                case FAILED -> LOG.warnf("%s failed: %s", outcome.step(), outcome.detail());
                default -> {}
            }
        }
    }

    private void logPass(PublishedPlan plan, List<String> changed, long millis) {
        if (passes == 0 || !changed.isEmpty()) {
            LOG.infof(
                    "pass %d of plan %d in %d ms: %s",
                    passes + 1,
                    plan.revision(),
                    millis,
                    changed.isEmpty() ? "nothing to change" : String.join(", ", changed));
        } else {
            LOG.debugf("pass %d of plan %d in %d ms: nothing to change", passes + 1, plan.revision(), millis);
        }
    }

    private void finished(PublishedPlan plan, List<String> changed, boolean waiting) {
        synchronized (this) {
            applied = plan;
            lastPass = Instant.now();
            failedPasses = changed.stream().anyMatch(c -> c.endsWith(" failed")) ? failedPasses + 1 : 0;
            waitingPasses = waiting ? waitingPasses + 1 : 0;
            passes++;
        }
        afterPass.run();
    }

    /** Whether a pass runs now. */
    boolean passing() {
        return passing;
    }

    /** The step a pass runs now; "" between steps and passes. */
    String running() {
        return running;
    }

    @Override
    protected void loop() {
        while (!stopping) {
            PublishedPlan plan;
            try {
                plan = awaitDue();
            } catch (InterruptedException e) {
                return;
            }
            if (plan != null) {
                pass(plan);
            }
        }
    }

    private synchronized PublishedPlan awaitDue() throws InterruptedException {
        while (!stopping) {
            Instant now = Instant.now();
            Optional<PublishedPlan> due = due(now);
            if (due.isPresent()) {
                return due.get();
            }
            long millis = offered == null
                    ? 0
                    : Math.max(1, Duration.between(now, nextPassAt()).toMillis());
            wait(millis);
        }
        return null;
    }
}
