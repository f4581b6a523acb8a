package io.slurmlet.agent.leader.plan;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The plans the leader has published, each with its own revision: a machine's revision rises only
 * when its plan changes, so an agent polling with the revision it applied is answered only when
 * there is something new for it.
 */
public final class PlanBook {

    /** A plan as published. */
    public record Published(long revision, NodePlan plan) { }

    private final Map<String, Published> plans = new HashMap<>();

    /** Publishes every plan; returns how many machines got a new revision. */
    public synchronized int publish(Planner.Plans next) {
        int changed = 0;
        for (NodePlan plan : next.nodes().values()) {
            Published before = plans.get(plan.node());
            if (before == null || !before.plan().equals(plan)) {
                plans.put(plan.node(), new Published(before == null ? 1 : before.revision() + 1, plan));
                changed++;
            }
        }
        return changed;
    }

    public synchronized Optional<Published> get(String node) {
        return Optional.ofNullable(plans.get(node));
    }
}
