package io.slurmlet.agent.packages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.fake.FakePackages;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PackagesStepTest {

    private final FakePackages packages = new FakePackages();
    private final PackagesStep step = new PackagesStep(packages);
    private final NodePlan plan =
            NodePlan.of("n1", Set.of(Role.COMPUTE)).withPackages(List.of("munge", "slurm-client", "slurmd"));

    @Test
    void installsOnlyWhatIsMissing() {
        packages.installed.add("munge");
        assertEquals(Outcome.changed("packages", "installed slurm-client, slurmd"), step.apply(plan));
        assertEquals(List.of("install slurm-client slurmd"), packages.log);
    }

    @Test
    void secondApplyInstallsNothing() {
        step.apply(plan);
        packages.log.clear();
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan).kind());
        assertTrue(packages.log.isEmpty());
    }

    @Test
    void aFailedInstallSaysWhatTheManagerPrinted() {
        packages.broken = true;
        Outcome o = step.apply(plan);
        assertTrue(o.failed());
        assertTrue(o.detail().contains("Unable to locate package slurmd"), o.detail());
    }
}
