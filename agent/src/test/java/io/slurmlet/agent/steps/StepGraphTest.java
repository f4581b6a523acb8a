package io.slurmlet.agent.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.model.plan.NodePlan;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The step graph: each step after the ones it waits for, every step once, and the steps a machine runs in its order. */
class StepGraphTest {

    static final Function<StepGraph.Machine, Diff> NOTHING = m -> Diff.of(List.of(), "");

    static Step named(String name) {
        return new Step() {
            public String name() {
                return name;
            }

            public Outcome apply(NodePlan plan) {
                return Outcome.unchanged(name, "");
            }
        };
    }

    @Test
    void theOrderIsTheOneAPassRuns() {
        assertEquals(
                List.of("packages", "munge", "storage", "users", "slurm", "pam", "containers", "nodestates"),
                StepGraph.names());
    }

    @Test
    void pamWaitsForSlurmAndContainersForThePackagesThatBuildPyxis() {
        StepGraph.Node pam = StepGraph.NODES.get(StepGraph.names().indexOf("pam"));
        assertEquals(List.of("slurm"), pam.after());
        StepGraph.Node containers = StepGraph.NODES.get(StepGraph.names().indexOf("containers"));
        assertEquals(true, containers.after().contains("packages"), containers.toString());
    }

    @Test
    void aStepAfterOneThatComesLaterIsRefused() {
        assertThrows(
                IllegalStateException.class,
                () -> StepGraph.checked(List.of(
                        new StepGraph.Node("pam", List.of("slurm"), "", NOTHING),
                        new StepGraph.Node("slurm", List.of(), "", NOTHING))));
        assertThrows(
                IllegalStateException.class,
                () -> StepGraph.checked(List.of(
                        new StepGraph.Node("slurm", List.of(), "", NOTHING),
                        new StepGraph.Node("slurm", List.of(), "", NOTHING))));
    }

    @Test
    void aMachinesStepsRunInTheGraphsOrderAndNoneIsMissingOrExtra() {
        List<Step> shuffled = new java.util.ArrayList<>(
                StepGraph.names().stream().map(StepGraphTest::named).toList());
        java.util.Collections.reverse(shuffled);
        assertEquals(
                StepGraph.names(),
                StepGraph.inOrder(shuffled).stream().map(Step::name).toList());
        assertThrows(IllegalArgumentException.class, () -> StepGraph.inOrder(shuffled.subList(1, shuffled.size())));
        List<Step> extra = new java.util.ArrayList<>(shuffled);
        extra.add(named("lending"));
        assertThrows(IllegalArgumentException.class, () -> StepGraph.inOrder(extra));
    }
}
