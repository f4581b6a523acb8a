package io.slurmlet.agent.leader.plan;

import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import java.lang.ref.SoftReference;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The settings write's reviews ({@link Planner#review(SlurmSettings, Map, Planner.Lent)}: every
 * machine planned for the settings before and after, for the checks that refuse a change that would
 * end jobs), the last one kept: a write's review of the settings it stores is the next write's
 * review of the current ones, so a run of writes plans every machine once a write, not twice
 * (about 0.25 s at 10,000 machines). Kept only while made from the same settings, the same
 * inventory (the very snapshot {@code Inventory.all()} hands out until a machine's facts change)
 * and the same lending; softly, so the collector may take it back when memory runs short.
 */
public final class Reviews {

    private record Reviewed(
            SlurmSettings settings, Map<String, NodeFacts> machines, Planner.Lent lent, Planner.Plans plans) {}

    private final AtomicReference<SoftReference<Reviewed>> last = new AtomicReference<>(new SoftReference<>(null));

    /** The review of {@code settings} on {@code machines} with {@code lent}: the one kept where it was made from them, else made now. */
    public Planner.Plans of(SlurmSettings settings, Map<String, NodeFacts> machines, Planner.Lent lent) {
        Reviewed kept = last.get().get();
        if (kept != null
                && kept.machines() == machines
                && kept.settings().equals(settings)
                && kept.lent().equals(lent)) {
            return kept.plans();
        }
        Planner.Plans plans = Planner.review(settings, machines, lent);
        last.set(new SoftReference<>(new Reviewed(settings, machines, lent, plans)));
        return plans;
    }
}
