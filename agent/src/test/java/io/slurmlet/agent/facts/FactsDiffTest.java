package io.slurmlet.agent.facts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.model.facts.NodeFacts;
import java.util.List;
import org.junit.jupiter.api.Test;

class FactsDiffTest {

    static final NodeFacts CONTROLLER =
            TestFacts.eightCores("n0").os("debian 13").slurmVersion("24.11.5").build();

    @Test
    void changedPluginsAreNamedNotOnlyCounted() {
        NodeFacts held = CONTROLLER.withSlurmPlugins(List.of("auth_munge", "sched_backfill"));
        NodeFacts now =
                CONTROLLER.withSlurmPlugins(List.of("auth_munge", "switch_a", "switch_b", "switch_c", "switch_d"));
        assertEquals(
                "the leader has 2 Slurm plugins, the machine 5 (new: switch_a, switch_b, switch_c and 1 more; gone: sched_backfill)",
                FactsDiff.changes(held, now));
        assertEquals(
                "the leader has 2 Slurm plugins, the machine 2 (new: switch_a; gone: sched_backfill)",
                FactsDiff.changes(held, CONTROLLER.withSlurmPlugins(List.of("auth_munge", "switch_a"))));
        assertEquals(
                "the leader's copy differs",
                FactsDiff.changes(held, CONTROLLER.withSlurmPlugins(List.of("sched_backfill", "auth_munge"))),
                "the same names in another order");
    }
}
