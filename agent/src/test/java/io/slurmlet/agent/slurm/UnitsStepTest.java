package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnitsStepTest {

    final FakeFiles files = new FakeFiles();
    final FakeServices services = new FakeServices();
    final UnitsStep step = new UnitsStep(files, services, Path.of("/"));

    static NodePlan plan(List<String> services) {
        return new NodePlan("n1", Set.of(Role.COMPUTE), List.of(), Optional.empty(), Map.of(), services, List.of());
    }

    @Test
    void eachSlurmDaemonOfThePlanIsStartedAgainBySystemdAfterACrashAndTwiceChangesNothing() {
        Outcome o = step.apply(plan(List.of("munge", "slurmd")));
        assertEquals(Outcome.changed("units", "wrote /etc/systemd/system/slurmd.service.d/slurmlet-restart.conf"), o);
        String dropIn = new String(files.stat(Path.of("/etc/systemd/system/slurmd.service.d/slurmlet-restart.conf")).orElseThrow()
                .content(), StandardCharsets.UTF_8);
        assertTrue(dropIn.contains("[Service]\nRestart=on-failure\nRestartSec=2\n") && dropIn.contains("[Unit]\nStartLimitIntervalSec=60\nStartLimitBurst=5\n"), dropIn);
        assertEquals(List.of("daemon-reload"), services.log, "read by systemd; slurmd itself is not restarted for it");
        files.log.clear();
        services.log.clear();
        assertEquals(Outcome.unchanged("units", "slurmd is started again by systemd after a crash"), step.apply(plan(List.of("munge", "slurmd"))));
        assertTrue(files.log.isEmpty() && services.log.isEmpty());
        assertEquals(Outcome.unchanged("units", "no Slurm daemon here"), step.apply(plan(List.of())));
    }
}
