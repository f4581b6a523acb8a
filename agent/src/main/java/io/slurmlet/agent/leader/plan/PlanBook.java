package io.slurmlet.agent.leader.plan;

import io.slurmlet.model.plan.PublishedPlan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The plans the leader has published, each with its own revision: a machine's revision rises only
 * when its plan changes, so an agent polling with the revision it applied is answered only when
 * there is something new for it. Revisions live as long as the leader: an agent that holds a
 * revision the leader does not know (the leader restarted) is answered at once with the current
 * plan, which for an unchanged cluster is the plan it already applied.
 */
public final class PlanBook {

    private final Map<String, PublishedPlan> plans = new HashMap<>();
    private final Map<String, Set<Consumer<PublishedPlan>>> waiting = new HashMap<>();

    /** Publishes every plan; returns how many machines got a new revision. */
    public int publish(Planner.Plans next) {
        List<Runnable> wake = new ArrayList<>();
        int changed = 0;
        synchronized (this) {
            for (var plan : next.nodes().values()) {
                PublishedPlan before = plans.get(plan.node());
                if (before == null || !before.plan().equals(plan)) {
                    PublishedPlan now = new PublishedPlan(before == null ? 1 : before.revision() + 1, plan);
                    plans.put(plan.node(), now);
                    changed++;
                    Set<Consumer<PublishedPlan>> waiters = waiting.remove(plan.node());
                    if (waiters != null) {
                        waiters.forEach(w -> wake.add(() -> w.accept(now)));
                    }
                }
            }
        }
        wake.forEach(Runnable::run);
        return changed;
    }

    public synchronized Optional<PublishedPlan> get(String node) {
        return Optional.ofNullable(plans.get(node));
    }

    /**
     * Hands {@code node}'s plan to {@code then} as soon as it differs from revision {@code held}: at
     * once if it already does, else when one is published. Returns what cancels the wait (the poll's
     * time is up, or its caller went away).
     */
    public Runnable whenNewer(String node, long held, Consumer<PublishedPlan> then) {
        PublishedPlan now;
        synchronized (this) {
            now = plans.get(node);
            if (now == null || now.revision() == held) {
                waiting.computeIfAbsent(node, n -> new LinkedHashSet<>()).add(then);
                return () -> cancel(node, then);
            }
        }
        then.accept(now);
        return () -> { };
    }

    private synchronized void cancel(String node, Consumer<PublishedPlan> waiter) {
        Set<Consumer<PublishedPlan>> waiters = waiting.get(node);
        if (waiters != null) {
            waiters.remove(waiter);
            if (waiters.isEmpty()) {
                waiting.remove(node);
            }
        }
    }

    /** How many polls wait now, for tests and figures. */
    public synchronized int waiting() {
        return waiting.values().stream().mapToInt(Set::size).sum();
    }
}
