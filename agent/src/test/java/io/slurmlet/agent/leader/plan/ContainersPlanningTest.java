package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Containers on: every Slurm machine installs them, and Slurm loads pyxis only once the last one reports it. */
class ContainersPlanningTest {

    static final MungeKey KEY = MungeKey.of(new byte[64]);
    static final ContainerFacts READY = new ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true);

    static SlurmSettings containers(boolean on) {
        return new SlurmSettings(
                true,
                "lab",
                "c0",
                List.of("n1", "n2"),
                false,
                List.of(),
                null,
                new SharedStorage("/shared", "", "c0"),
                null,
                on,
                null);
    }

    static Map<String, NodeFacts> machines(ContainerFacts c0, ContainerFacts n1, ContainerFacts n2) {
        Map<String, NodeFacts> m = new HashMap<>();
        m.put("c0", PlannerTest.machine("c0", "debian 13", "24.11.5").withContainers(c0));
        m.put("n1", PlannerTest.machine("n1", "debian 13", "24.11.5").withContainers(n1));
        m.put("n2", PlannerTest.machine("n2", "debian 13", "24.11.5").withContainers(n2));
        m.put("other", PlannerTest.machine("other", "debian 13", "24.11.5"));
        return m;
    }

    @Test
    void everySlurmMachineInstallsThemWithItsBuildToolsAndTheSharedPathButPyxisWaitsForTheLastMachine() {
        var plans = Planner.plan(containers(true), machines(READY, READY, ContainerFacts.NONE), KEY);
        for (String node : List.of("c0", "n1", "n2")) {
            ContainersPlan c = plans.nodes().get(node).containers();
            assertEquals(new ContainersPlan(true, List.of(), "/shared", false), c, node);
            assertTrue(
                    plans.nodes().get(node).packages().containsAll(List.of("gcc", "make", "libc6-dev", "libslurm-dev")),
                    node);
        }
        assertEquals(
                ContainersPlan.NONE,
                plans.nodes().get("other").containers(),
                "a machine without a role installs nothing");
        String plugstack = plans.nodes().get("n1").files().get("/etc/slurm/plugstack.conf");
        assertFalse(plugstack.contains("required"), plugstack);
        assertTrue(
                plugstack.contains("No SPANK plugins yet: pyxis comes here once every Slurm machine reports it"),
                plugstack);
        assertFalse(plans.nodes().get("n1").files().get("/etc/slurm/slurm.conf").contains("Prolog="));
        assertTrue(
                plans.notes()
                        .contains(
                                "containers: Slurm loads pyxis once every Slurm machine has it; waiting for n2 (enroot, pyxis, "
                                        + "slurmlet's prolog)"),
                plans.notes().toString());
    }

    @Test
    void anRpmMachineBuildsPyxisAgainstSlurmDevel() {
        Map<String, NodeFacts> m = machines(READY, READY, ContainerFacts.NONE);
        m.put("n2", PlannerTest.machine("n2", "rocky 9.4", "24.11.5").withContainers(ContainerFacts.NONE));
        var plans = Planner.plan(containers(true), m, KEY);
        assertTrue(
                plans.nodes().get("n2").packages().containsAll(List.of("gcc", "make", "slurm-devel")),
                plans.nodes().get("n2").packages().toString());
        assertFalse(
                plans.nodes().get("n2").packages().contains("libslurm-dev"),
                plans.nodes().get("n2").packages().toString());
        assertTrue(
                plans.nodes().get("n1").packages().contains("libslurm-dev"),
                "a Debian machine beside it keeps Debian's names");
    }

    @Test
    void onceEveryMachineHasPyxisForItsOwnSlurmPlugstackRequiresItAndSlurmRunsTheProlog() {
        var plans = Planner.plan(containers(true), machines(READY, READY, READY), KEY);
        for (String node : List.of("c0", "n1", "n2")) {
            String plugstack = plans.nodes().get(node).files().get("/etc/slurm/plugstack.conf");
            assertTrue(plugstack.endsWith("\nrequired " + ContainerFacts.PYXIS_PLUGIN + "\n"), plugstack);
            assertTrue(plans.nodes()
                    .get(node)
                    .files()
                    .get("/etc/slurm/slurm.conf")
                    .contains("\nProlog=" + ContainerFacts.PROLOG + "\n"));
        }
        assertTrue(
                plans.notes().stream().noneMatch(n -> n.startsWith("containers:")),
                plans.notes().toString());
    }

    @Test
    void aPyxisBuiltForAnotherSlurmOrAMachineThatLostItTakesPyxisBackOffForEveryone() {
        ContainerFacts old = new ContainerFacts("4.1.2", "0.24.0", "22.05.8", "e".repeat(64), true);
        var plans = Planner.plan(containers(true), machines(READY, old, READY), KEY);
        assertFalse(
                plans.nodes().get("c0").files().get("/etc/slurm/plugstack.conf").contains("required"));
        assertTrue(
                plans.notes()
                        .contains(
                                "containers: Slurm loads pyxis once every Slurm machine has it; waiting for n1 (a pyxis built for "
                                        + "its Slurm 24.11.5 (it has one for 22.05.8))"),
                plans.notes().toString());
    }

    /**
     * An upgrade under way, the controller on 24.11 and n2 still on 24.05 (an older slurmd is one
     * Slurm allows): each machine's pyxis is built for its own Slurm, since srun and slurmd load it
     * with their own libslurm and refuse a plugin of another release. n2's pyxis for 24.05 is what it
     * needs; one built for the controller's 24.11 would not load there.
     */
    @Test
    void duringAnUpgradeEachMachinesPyxisIsForItsOwnSlurmNotTheControllers() {
        Map<String, NodeFacts> m = machines(READY, READY, READY);
        m.put(
                "n2",
                PlannerTest.machine("n2", "debian 13", "24.05.3")
                        .withContainers(new ContainerFacts("4.1.2", "0.24.0", "24.05.3", "e".repeat(64), true)));
        var plans = Planner.plan(containers(true), m, KEY);
        for (String node : List.of("c0", "n1", "n2")) {
            assertTrue(
                    plans.nodes()
                            .get(node)
                            .files()
                            .get("/etc/slurm/plugstack.conf")
                            .endsWith("\nrequired " + ContainerFacts.PYXIS_PLUGIN + "\n"),
                    node + ": " + plans.notes());
        }

        m.put("n2", m.get("n2").withContainers(READY)); // built for 24.11.5, the controller's, on a machine of 24.05.3
        plans = Planner.plan(containers(true), m, KEY);
        assertFalse(
                plans.nodes().get("c0").files().get("/etc/slurm/plugstack.conf").contains("required"));
        assertTrue(
                plans.notes()
                        .contains(
                                "containers: Slurm loads pyxis once every Slurm machine has it; waiting for n2 (a pyxis built for "
                                        + "its Slurm 24.05.3 (it has one for 24.11.5))"),
                plans.notes().toString());
    }

    @Test
    void aMachineWithGpusInstallsNvidiaContainerCliAndHoldsPyxisBackUntilItHasIt() {
        Map<String, NodeFacts> m = machines(READY, READY, READY);
        m.put(
                "n2",
                TestFacts.eightCores("n2")
                        .gpus(List.of(new NodeFacts.Gpus("NVIDIA H100 80GB HBM3", 2)))
                        .os("debian 13")
                        .slurmVersion("24.11.5")
                        .build()
                        .withContainers(READY));
        var plans = Planner.plan(containers(true), m, KEY);
        assertTrue(plans.nodes().get("n2").containers().gpus(), "n2 gets nvidia-container-cli");
        assertFalse(
                plans.nodes().get("n1").containers().gpus(),
                "n1 has no GPU: no nvidia-container-cli, and containers told so");
        assertFalse(
                plans.nodes().get("c0").files().get("/etc/slurm/plugstack.conf").contains("required"));
        assertTrue(
                plans.notes()
                        .contains("containers: Slurm loads pyxis once every Slurm machine has it; waiting for n2 "
                                + "(nvidia-container-cli (it has NVIDIA GPUs))"),
                plans.notes().toString());

        m.put(
                "n2",
                m.get("n2")
                        .withContainers(
                                new ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true, "1.17.8")));
        plans = Planner.plan(containers(true), m, KEY);
        assertTrue(plans.nodes()
                .get("c0")
                .files()
                .get("/etc/slurm/plugstack.conf")
                .contains("\nrequired " + ContainerFacts.PYXIS_PLUGIN + "\n"));
    }

    @Test
    void containersOffInstallNothingAndLoadNothingWhateverTheMachinesHave() {
        var plans = Planner.plan(containers(false), machines(READY, READY, READY), KEY);
        assertEquals(ContainersPlan.NONE, plans.nodes().get("n1").containers());
        assertFalse(plans.nodes().get("n1").packages().contains("libslurm-dev"));
        String plugstack = plans.nodes().get("n1").files().get("/etc/slurm/plugstack.conf");
        assertTrue(plugstack.contains("No SPANK plugins: containers are off (ctl slurm containers on)."), plugstack);
    }

    @Test
    void thePublishedPlansCarryTheLeadersPinnedFiles() {
        var artifacts = List.of(new io.slurmlet.model.plan.Artifact(
                "pyxis",
                "0.24.0",
                "all",
                "source",
                "pyxis-0.24.0.tar.gz",
                "c".repeat(64),
                "http://m/pyxis-0.24.0.tar.gz"));
        var plans = io.slurmlet.agent.leader.PlanPublisherAccess.withArtifacts(
                Planner.plan(containers(true), machines(READY, READY, READY), KEY), artifacts);
        assertEquals(artifacts, plans.nodes().get("n2").containers().artifacts());
        assertEquals(ContainersPlan.NONE, plans.nodes().get("other").containers());
        assertTrue(plans.nodes().get("n2").storage() instanceof StoragePlan.Mount);
    }
}
