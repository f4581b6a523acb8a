package io.slurmlet.agent.packages;

import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.SystemException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PackagesStepTest {

    /** A package manager in memory, with a log of installs. */
    static final class FakePackages implements Packages {
        final Set<String> installed = new HashSet<>();
        final List<String> log = new ArrayList<>();
        boolean broken;

        @Override
        public List<String> missing(List<String> names) {
            return names.stream().filter(n -> !installed.contains(n)).toList();
        }

        @Override
        public void install(List<String> names) throws SystemException {
            log.add("install " + String.join(" ", names));
            if (broken) {
                throw new SystemException("`apt-get install -y slurmd` exited with status 100; it printed: E: Unable to locate package slurmd");
            }
            installed.addAll(names);
        }
    }

    private final FakePackages packages = new FakePackages();
    private final PackagesStep step = new PackagesStep(packages);
    private final NodePlan plan = new NodePlan("n1", Set.of(Role.COMPUTE), List.of("munge", "slurm-client", "slurmd"),
            Optional.empty(), Map.of(), List.of(), List.of());

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
