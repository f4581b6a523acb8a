package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.steps.StepGraph;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeHostFiles;
import io.slurmlet.agent.system.fake.FakePackages;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.agent.system.fake.FakeUsers;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.plan.NodePlan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's steps as wired on a machine: in the step graph's order, and each reporting what it saw through its own section. */
class NodeWiringTest {

    @TempDir
    Path state;

    NodeWiring wiring() {
        FakeFiles files = new FakeFiles();
        FakeCommands commands = new FakeCommands().notInstalled("showmount");
        Ports ports = new Ports(
                commands, files, new FakeHostFiles(files), new FakeServices(), new FakeUsers(), new FakePackages());
        return NodeWiring.of(
                ports,
                "n1",
                state.resolve("root"),
                state,
                Optional.empty(),
                java.time.Clock.systemUTC(),
                (path, timeout) -> {
                    throw new IOException("no leader here");
                });
    }

    @Test
    void theStepsRunInTheGraphsOrderBetweenTheFactsAndTheDaemonWatch() {
        NodeWiring w = wiring();
        assertEquals(StepGraph.names(), w.steps().stream().map(Step::name).toList());
        List<String> names = new ArrayList<>(List.of(FactsStep.NAME));
        names.addAll(StepGraph.names());
        names.add(DaemonWatch.NAME);
        assertEquals(names, w.names());
    }

    @Test
    void theReportHasWhatEachStepSawOnceItLooked() {
        NodeWiring w = wiring();
        assertEquals(Observed.NOTHING.withJobs(List.of("7")), w.observed(List.of("7")), "no step has looked yet");
        NodePlan none = NodePlan.of("n1", Set.of());
        w.steps().forEach(s -> s.apply(none));
        Observed seen = w.observed(List.of("7"));
        assertEquals(List.of("7"), seen.jobs());
        assertNotNull(seen.packages(), "packages");
        assertNotNull(seen.munge(), "munge");
        assertNotNull(seen.storage(), "storage");
        assertNotNull(seen.users(), "users");
        assertNotNull(seen.slurm(), "slurm");
        assertNotNull(seen.pam(), "pam");
        assertNull(seen.containers(), "containers off: the step does not look, and reports nothing");
        assertFalse(w.daemonsHeldBack(), "no plugin is wanted");
    }
}
