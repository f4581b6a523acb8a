package io.slurmlet.ctl;

import io.slurmlet.model.settings.SlurmSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.document;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ContainersCommandTest {

    static final SlurmSettings WITH_CONTAINERS = new SlurmSettings(SETTINGS.enabled(), SETTINGS.clusterName(),
            SETTINGS.controller(), SETTINGS.nodes(), false, SETTINGS.lent(), SETTINGS.partition(), SETTINGS.shared(),
            SETTINGS.users(), true, SETTINGS.experimental());

    @TempDir
    Path dir;
    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader();
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void onPatchesContainersTrue() {
        leader.on("PATCH", "/v1/slurm/settings", document(8, WITH_CONTAINERS));
        var r = ctl.run("slurm", "containers", "on");
        assertEquals(0, r.exit(), r::toString);
        var patch = leader.requests("PATCH").get(0);
        assertEquals("{\"containers\":true}", patch.body());
        assertEquals("application/merge-patch+json", patch.header("Content-Type"));
        assertNull(patch.header("If-Match"));
        assertEquals("containers on (revision 8)\n", r.out());
    }

    @Test
    void offPatchesContainersFalse() {
        leader.on("PATCH", "/v1/slurm/settings", document(9, SETTINGS));
        var r = ctl.run("slurm", "containers", "off");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("{\"containers\":false}", leader.requests("PATCH").get(0).body());
        assertEquals("containers off (revision 9)\n", r.out());
    }

    @Test
    void statusShowsWhatEachSlurmMachineHasAndWhatLoadingPyxisWaitsFor() {
        leader.on("GET", "/v1/slurm/settings", document(8, WITH_CONTAINERS));
        var ready = new io.slurmlet.model.facts.ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true);
        var status = new io.slurmlet.model.api.SlurmStatus(8, true, "lab", "c0", "gpu", List.of(
                new io.slurmlet.model.api.SlurmStatus.NodeStatus("c0", List.of("slurmctld"), false, "24.11.5", "", 3, List.of(), ready, 0),
                new io.slurmlet.model.api.SlurmStatus.NodeStatus("g1", List.of("slurmd"), true, "24.11.5", "", 3, List.of(), ready, 8),
                new io.slurmlet.model.api.SlurmStatus.NodeStatus("g2", List.of("slurmd"), true, "24.11.5", "", 3, List.of(),
                        new io.slurmlet.model.facts.ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true, "1.17.8"), 8),
                new io.slurmlet.model.api.SlurmStatus.NodeStatus("n1", List.of("slurmd"), true, "24.11.5", "", 3, List.of(), null, 0),
                new io.slurmlet.model.api.SlurmStatus.NodeStatus("other", List.of(), false, "", "", 3, List.of(), null, 0)),
                List.of(), List.of("containers: Slurm loads pyxis once every Slurm machine has it; waiting for g1 (nvidia-container-cli "
                + "(it has NVIDIA GPUs)), n1 (enroot, pyxis, slurmlet's prolog)"));
        leader.on("GET", "/v1/slurm/status", StubLeader.ok(StubLeader.json(status)));
        var r = ctl.run("slurm", "containers", "status");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                containers on
                NODE  SLURM    ENROOT  PYXIS   BUILT FOR  PROLOG  GPUS  NVIDIA CLI  READY
                c0    24.11.5  4.1.2   0.24.0  24.11.5    yes     0     not needed  yes
                g1    24.11.5  4.1.2   0.24.0  24.11.5    yes     8     -           no
                g2    24.11.5  4.1.2   0.24.0  24.11.5    yes     8     1.17.8      yes
                n1    24.11.5  -       -       -          no      0     not needed  no

                Slurm loads pyxis once every Slurm machine has it; waiting for g1 (nvidia-container-cli (it has NVIDIA GPUs)), n1 (enroot, pyxis, slurmlet's prolog)
                """, r.out());
        assertEquals(List.of(), leader.requests("PATCH"));
    }

    @Test
    void anythingElseIsBadUsage() {
        var r = ctl.run("slurm", "containers", "yes");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().contains("expected one of [on, off, status]"), r::toString);
        assertTrue(r.err().contains("See 'ctl slurm containers --help'."), r::toString);
        r = ctl.run("slurm", "containers");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(List.of(), leader.requests);
    }
}
