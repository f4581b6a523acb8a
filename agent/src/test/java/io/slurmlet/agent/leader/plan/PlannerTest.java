package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.SlurmAuthKeys;
import io.slurmlet.model.plan.SlurmJwks;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlannerTest {

    private static final MungeKey KEY = MungeKey.of(new byte[64]);

    static NodeFacts machine(String name, String os, String slurm) {
        return TestFacts.eightCores(name).os(os).slurmVersion(slurm).build();
    }

    static SlurmSettings settings(boolean allNodes, String... nodes) {
        return new SlurmSettings(true, "lab", "c0", List.of(nodes), allNodes, List.of(), null, null, null, false, null);
    }

    static Map<String, NodeFacts> inventory(String slurm, String... names) {
        Map<String, NodeFacts> m = new HashMap<>();
        for (String n : names) {
            m.put(n, machine(n, "debian 12", slurm));
        }
        return m;
    }

    @Test
    void theControllerRunsSlurmctldNodesRunSlurmdAndAMachineCanBeBoth() {
        var plans = Planner.plan(settings(false, "c0", "n1"), inventory("22.05.8", "c0", "n1", "other"), KEY);
        assertEquals(
                Set.of(Role.CONTROLLER, Role.COMPUTE), plans.nodes().get("c0").roles());
        assertEquals(Set.of(Role.COMPUTE), plans.nodes().get("n1").roles());
        assertEquals(Set.of(), plans.nodes().get("other").roles());
        assertEquals(
                List.of("munge", "slurm-client", "slurmctld", "slurmd"),
                plans.nodes().get("c0").packages());
        assertEquals(
                List.of("munge", "slurmctld", "slurmd"),
                plans.nodes().get("c0").slurm().services());
        assertEquals(List.of("munge", "slurmd"), plans.nodes().get("n1").slurm().services());
    }

    @Test
    void everyPlanSaysTheFactsItWasMadeFromRoleOrNot() {
        Map<String, NodeFacts> inventory = inventory("22.05.8", "c0", "n1", "other");
        var plans = Planner.plan(settings(false, "c0", "n1"), inventory, KEY);
        for (String name : List.of("c0", "n1", "other")) {
            assertEquals(
                    Optional.of(inventory.get(name)), plans.nodes().get(name).plannedFrom(), name);
        }
    }

    @Test
    void aMachineWithoutARoleGetsNothingNotEvenTheKey() {
        NodePlan other = Planner.plan(settings(false, "n1"), inventory("22.05.8", "c0", "n1", "other"), KEY)
                .nodes()
                .get("other");
        assertEquals(List.of(), other.packages());
        assertEquals(Optional.empty(), other.mungeKey());
        assertTrue(other.files().isEmpty());
        assertEquals(List.of(), other.slurm().services());
    }

    @Test
    void allNodesTakesEveryMachineThatJoined() {
        var plans = Planner.plan(settings(true), inventory("24.11.5", "c0", "late1", "late2"), KEY);
        assertTrue(plans.nodes().get("late2").runs(Role.COMPUTE));
        assertTrue(plans.nodes().get("c0").runs(Role.COMPUTE), "with all_nodes the controller is a node too");
    }

    @Test
    void everyMachineGetsTheSameSlurmFilesForTheControllersVersion() {
        var plans = Planner.plan(settings(false, "n1", "n2"), inventory("24.11.5", "c0", "n1", "n2"), KEY);
        Map<String, String> files = plans.nodes().get("c0").files();
        assertEquals(
                List.of(
                        "/etc/slurm/slurm.conf",
                        "/etc/slurm/cgroup.conf",
                        "/etc/slurm/gres.conf",
                        "/etc/slurm/plugstack.conf"),
                List.copyOf(files.keySet()));
        assertTrue(files.get("/etc/slurm/slurm.conf")
                .startsWith("# slurm.conf: written by slurmlet, with its generator for Slurm 24.11."));
        assertEquals(files, plans.nodes().get("n1").files());
        assertEquals(files, plans.nodes().get("n2").files());
    }

    @Test
    void filesWaitForTheControllersSlurmVersionAndNoDaemonStartsWithoutThem() {
        Map<String, NodeFacts> inv = inventory("22.05.8", "n1");
        inv.put("c0", machine("c0", "debian 12", ""));
        var plans = Planner.plan(settings(false, "n1"), inv, KEY);
        assertTrue(plans.nodes().get("n1").files().isEmpty());
        assertEquals(List.of("munge"), plans.nodes().get("n1").slurm().services());
        assertEquals(
                List.of("munge", "slurm-client", "slurmctld"),
                plans.nodes().get("c0").packages());
        assertEquals(
                List.of(
                        "Slurm's files wait for the controller c0 to report its Slurm version (its packages step installs Slurm)"),
                plans.notes());
    }

    @Test
    void aNodeNewerThanTheControllerIsReportedAndItsSlurmdNotStarted() {
        Map<String, NodeFacts> inv = inventory("22.05.8", "c0", "n1");
        inv.put("n2", machine("n2", "debian 13", "24.11.5"));
        var plans = Planner.plan(settings(false, "n1", "n2"), inv, KEY);
        NodePlan n2 = plans.nodes().get("n2");
        assertEquals(List.of("munge"), n2.slurm().services());
        assertEquals(
                List.of(
                        new Problem(
                                "nodes",
                                "n2",
                                "n2 has Slurm 24.11.5, newer than the controller c0's 22.05.8: "
                                        + "slurmctld must be at least as new as every slurmd; upgrade Slurm on c0 first, or install 22.05 on n2")),
                n2.problems());
        assertEquals(n2.problems(), plans.problems());
        assertEquals(List.of("munge", "slurmd"), plans.nodes().get("n1").slurm().services());
    }

    /**
     * Under auth=slurm every Slurm machine with files gets Slurm's keys and no munge key, and munge is
     * no daemon of the plan's; slurm.conf says auth/slurm and cred/slurm. A node whose Slurm has no
     * auth/slurm (22.05) or whose plugins lack it is a problem of the key auth, and its slurmd does
     * not start; a controller of 22.05 writes no files at all. A review's plans carry the stand-in.
     */
    @Test
    void underAuthSlurmThePlansCarrySlurmsKeysAndNoMungeKeyAndAMachineBelowTheFloorRunsNoSlurmd() {
        SlurmAuthKeys keys = new SlurmAuthKeys(1, SlurmJwks.first("slurmlet-1"));
        SlurmSettings s = settings(false, "n1", "n2", "n3").withAuth("slurm");
        Map<String, NodeFacts> inv = inventory("24.11.5", "c0", "n1", "other");
        inv.put("n2", machine("n2", "debian 12", "23.11.4"));
        inv.put(
                "n3",
                TestFacts.eightCores("n3")
                        .os("debian 13")
                        .slurmVersion("24.11.5")
                        .slurmPlugins(List.of("auth_munge", "cred_munge", "select_cons_tres"))
                        .build());
        var plans = Planner.plan(s, inv, KEY, keys, Planner.Lent.asWished(s), List.of());
        NodePlan c0 = plans.nodes().get("c0");
        NodePlan n1 = plans.nodes().get("n1");
        assertEquals(java.util.Optional.of(keys), c0.slurmKeys());
        assertEquals(java.util.Optional.of(keys), n1.slurmKeys());
        assertEquals(java.util.Optional.empty(), c0.mungeKey());
        assertEquals(java.util.Optional.empty(), n1.mungeKey());
        assertEquals(java.util.Optional.empty(), plans.nodes().get("other").slurmKeys());
        assertEquals(List.of("slurmctld"), c0.slurm().services());
        assertEquals(List.of("slurmd"), n1.slurm().services());
        String conf = n1.files().get("/etc/slurm/slurm.conf");
        assertTrue(conf.contains("\nAuthType=auth/slurm\n") && conf.contains("\nCredType=cred/slurm\n"), conf);

        assertEquals(List.of(), plans.nodes().get("n2").slurm().services());
        assertEquals(
                List.of(
                        new Problem(
                                "auth",
                                "slurm",
                                "n2 runs Slurm 23.11.4, whose daemons keep their keys across a reconfigure (they do not "
                                        + "re-execute before 24.05): upgrade Slurm there to 24.05 or later, or set auth=munge")),
                plans.nodes().get("n2").problems());
        assertEquals(
                "n3 runs Slurm 24.11.5 without its auth_slurm plugin: install the package of Slurm's plugins that holds "
                        + "auth_slurm.so there (Debian's slurm-wlm-basic-plugins), or set auth=munge",
                plans.nodes().get("n3").problems().get(0).message());
        assertTrue(conf.contains("NodeName=n[1-3] "), "it keeps its line, as a node of another version does: " + conf);

        var review = Planner.review(s, inv);
        assertEquals(
                java.util.Optional.of(Planner.STAND_IN_KEYS),
                review.nodes().get("n1").slurmKeys());
        assertEquals(java.util.Optional.empty(), review.nodes().get("n1").mungeKey());

        var onMunge = Planner.plan(s.withAuth("munge"), inv, KEY, keys, Planner.Lent.asWished(s), List.of());
        assertEquals(java.util.Optional.empty(), onMunge.nodes().get("n1").slurmKeys());
        assertEquals(java.util.Optional.of(KEY), onMunge.nodes().get("n1").mungeKey());
        assertEquals(
                List.of("munge", "slurmd"), onMunge.nodes().get("n2").slurm().services(), "22.05 is fine on munge");

        var old = Planner.plan(s, inventory("22.05.8", "c0", "n1"), KEY, keys, Planner.Lent.asWished(s), List.of());
        assertEquals(Map.of(), old.nodes().get("n1").files(), "no slurm.conf with auth/slurm for a 22.05 slurmctld");
        assertTrue(
                old.problems().stream()
                        .anyMatch(p -> p.key().equals("auth")
                                && p.message().startsWith("c0 runs Slurm 22.05.8, which has no auth/slurm")),
                old.problems().toString());
    }

    @Test
    void aNodeTooFarBehindTheControllerIsReported() {
        Map<String, NodeFacts> inv = inventory("26.05.5", "c0");
        inv.put("old", machine("old", "debian 12", "22.05.8"));
        inv.put("ok", machine("ok", "debian 13", "24.11.5"));
        var plans = Planner.plan(settings(false, "old", "ok"), inv, KEY);
        assertEquals(
                "old has Slurm 22.05.8, 7 major releases older than the controller c0's 26.05.5; slurmctld 26.05 "
                        + "talks to slurmd up to 3 releases older: upgrade Slurm on old to 24.11 or later",
                plans.nodes().get("old").problems().get(0).message());
        assertTrue(plans.nodes().get("ok").problems().isEmpty(), "24.11 is three releases behind 26.05");
    }

    @Test
    void rpmMachinesGetEpelPackageNames() {
        Map<String, NodeFacts> inv = Map.of("c0", machine("c0", "rocky 9.4", "24.11.5"));
        assertEquals(
                List.of("munge", "slurm", "slurm-slurmctld", "slurm-slurmd"),
                Planner.plan(settings(false, "c0"), inv, KEY).nodes().get("c0").packages());
    }

    @Test
    void disabledSettingsPlanNothing() {
        SlurmSettings off =
                new SlurmSettings(false, null, "c0", List.of("n1"), false, List.of(), null, null, null, false, null);
        var plans = Planner.plan(off, inventory("22.05.8", "c0", "n1"), KEY);
        plans.nodes()
                .values()
                .forEach(p -> assertTrue(p.roles().isEmpty()
                        && p.files().isEmpty()
                        && p.mungeKey().isEmpty()));
    }

    @Test
    void theMungeKeyIsNeverPrinted() {
        NodePlan plan = Planner.plan(settings(false, "n1"), inventory("22.05.8", "c0", "n1"), MungeKey.random())
                .nodes()
                .get("n1");
        assertTrue(plan.toString().contains("MungeKey[1024 bytes, not shown]"), plan.toString());
    }

    @Test
    void theSamePlanTwiceKeepsItsRevisionAndAChangeRaisesOnlyThatMachines() {
        PlanBook book = new PlanBook();
        var first = Planner.plan(settings(false, "n1", "n2"), inventory("24.11.5", "c0", "n1", "n2"), KEY);
        assertEquals(3, book.publish(first));
        long n1 = book.get("n1").orElseThrow().revision();
        assertEquals(
                0,
                book.publish(Planner.plan(settings(false, "n1", "n2"), inventory("24.11.5", "c0", "n1", "n2"), KEY)));
        assertEquals(n1, book.get("n1").orElseThrow().revision());
        Map<String, NodeFacts> inv = inventory("24.11.5", "c0", "n1", "n2", "n3");
        var withOther = Planner.plan(settings(false, "n1", "n2"), inv, KEY);
        assertEquals(1, book.publish(withOther), "a machine without a role joining changes no one else's plan");
        assertEquals(n1, book.get("n1").orElseThrow().revision());
        assertEquals(
                4,
                book.publish(Planner.plan(settings(false, "n1", "n2", "n3"), inv, KEY)),
                "a new node changes slurm.conf, so the plan of every Slurm machine, the controller included");
        assertTrue(book.get("n1").orElseThrow().revision() > n1);
        assertFalse(book.get("nobody").isPresent());
    }

    static SlurmSettings sharing(io.slurmlet.model.settings.SharedStorage shared, String users) {
        return new SlurmSettings(
                true, "lab", "c0", List.of("n2", "n1"), false, List.of(), null, shared, users, false, null, Map.of());
    }

    @Test
    void theServerExportsToTheMachinesSlurmConfNamesAndTheOthersMountIt() {
        var plans = Planner.plan(
                        sharing(new io.slurmlet.model.settings.SharedStorage("/shared/", "", "c0"), ""),
                        inventory("24.11.5", "c0", "n1", "n2", "other"),
                        KEY)
                .nodes();
        assertEquals(
                new StoragePlan.Export("/shared", List.of("c0", "n1", "n2")),
                plans.get("c0").storage(),
                "the controller, then the nodes in slurm.conf's order");
        assertEquals(
                new StoragePlan.Mount("/shared", "c0:/shared", true),
                plans.get("n1").storage());
        assertEquals(StoragePlan.NONE, plans.get("other").storage(), "no role, no storage");
        assertTrue(plans.get("c0").packages().contains("nfs-ganesha"));
        assertFalse(plans.get("n1").packages().contains("nfs-ganesha"));
    }

    @Test
    void aSitesExportIsMountedEverywhereAndAPathAloneIsOnlyChecked() {
        var nfs = Planner.plan(
                        sharing(new io.slurmlet.model.settings.SharedStorage("/shared", "nas:/export", ""), ""),
                        inventory("24.11.5", "c0", "n1"),
                        KEY)
                .nodes();
        assertEquals(
                new StoragePlan.Mount("/shared", "nas:/export", false),
                nfs.get("c0").storage());
        assertEquals(
                new StoragePlan.Mount("/shared", "nas:/export", false),
                nfs.get("n1").storage());
        var site = Planner.plan(
                        sharing(new io.slurmlet.model.settings.SharedStorage("/lustre", "", ""), ""),
                        inventory("24.11.5", "c0", "n1"),
                        KEY)
                .nodes();
        assertEquals(new StoragePlan.Check("/lustre"), site.get("n1").storage());
        assertEquals(
                StoragePlan.NONE,
                Planner.plan(sharing(null, ""), inventory("24.11.5", "c0", "n1"), KEY)
                        .nodes()
                        .get("n1")
                        .storage());
    }

    @Test
    void theServersExportWaitsForTheControllersVersion() {
        var plans = Planner.plan(
                        sharing(new io.slurmlet.model.settings.SharedStorage("/shared", "", "n1"), ""),
                        inventory("", "c0", "n1", "n2"),
                        KEY)
                .nodes();
        assertEquals(
                new StoragePlan.Export("/shared", List.of()),
                plans.get("n1").storage(),
                "no slurm.conf, no machines yet");
    }

    @Test
    void pamSlurmAdoptIsPlannedOnComputeNodesThatAreNotTheControllerOnlyWithUsers() {
        var plans = Planner.plan(
                        sharing(null, SlurmSettings.USERS_SLURMLET),
                        inventory("24.11.5", "c0", "n1", "n2", "other"),
                        KEY)
                .nodes();
        assertTrue(plans.get("n1").pam().adopt());
        assertTrue(plans.get("n2").pam().adopt());
        assertFalse(plans.get("c0").pam().adopt(), "never on the controller: users log in there to submit jobs");
        assertFalse(plans.get("other").pam().adopt());
        assertFalse(Planner.plan(sharing(null, ""), inventory("24.11.5", "c0", "n1"), KEY)
                .nodes()
                .get("n1")
                .pam()
                .adopt());
    }

    @Test
    void aNodeTakenOutOfTheNodesWhileItsLendingIsUnderWayStaysInSlurmDrainedUntilItsReclaimEnds() {
        SlurmSettings s = new SlurmSettings(
                true,
                "lab",
                "c0",
                List.of("n1"),
                false,
                List.of("n1"),
                null,
                new io.slurmlet.model.settings.SharedStorage("/shared", "", "c0"),
                null,
                false,
                null);
        var machines = inventory("24.11.5", "c0", "n1", "n2");
        assertEquals(Set.of("n2"), Planner.leaving(s, Set.of("n1", "n2"), Set.of("n1", "n2"), machines));
        var plans = Planner.plan(
                s, machines, KEY, new Planner.Lent(Set.of("n1", "n2"), Set.of(), Set.of("n1", "n2"), Set.of("n2")));
        NodePlan n2 = plans.nodes().get("n2");
        assertEquals(Set.of(Role.COMPUTE), n2.roles(), "it keeps its slurmd");
        assertEquals(List.of("munge", "slurmd"), n2.slurm().services());
        assertEquals(new StoragePlan.Mount("/shared", "c0:/shared", true), n2.storage(), "and its mount");
        assertTrue(
                slurmConfNodes(plans.nodes().get("c0").files().get("/etc/slurm/slurm.conf"))
                        .contains("n2"),
                "slurm.conf keeps it");
        var c0 = plans.nodes().get("c0");
        assertEquals(
                io.slurmlet.model.plan.NodeWish.RECLAIM,
                c0.nodeStates().get("n2"),
                "drained for its reclaim, though lent a moment ago");
        assertEquals(io.slurmlet.model.plan.NodeWish.RESUME, c0.nodeStates().get("n1"));
        assertEquals(
                new StoragePlan.Export("/shared", List.of("c0", "n1", "n2")), c0.storage(), "still exported to it");
        assertTrue(
                plans.notes().stream().anyMatch(n -> n.startsWith("n2 leaves Slurm once its reclaim has ended")),
                plans.notes().toString());

        var after =
                Planner.plan(s, machines, KEY, new Planner.Lent(Set.of("n1"), Set.of(), Set.of("n1", "n2"), Set.of()));
        assertEquals(Set.of(), after.nodes().get("n2").roles(), "once reclaimed it leaves");
        assertFalse(slurmConfNodes(after.nodes().get("c0").files().get("/etc/slurm/slurm.conf"))
                .contains("n2"));
    }

    @Test
    void disabledSettingsKeepSlurmRunningWithNothingLentUntilTheLastLendingHasEnded() {
        SlurmSettings on = new SlurmSettings(
                true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), null, null, null, false, null);
        SlurmSettings off = on.withEnabled(false);
        var machines = inventory("24.11.5", "c0", "n1", "n2");
        assertEquals(Set.of("n1"), Planner.leaving(off, Set.of("n1"), Set.of("n1"), machines));
        var winding = Planner.plan(
                off, machines, KEY, new Planner.Lent(Set.of(), Set.of("n1"), Set.of("n1", "n2"), Set.of("n1")));
        assertEquals(
                List.of("munge", "slurmctld"), winding.nodes().get("c0").slurm().services(), "slurmctld keeps running");
        assertEquals(Set.of(Role.COMPUTE), winding.nodes().get("n1").roles());
        assertEquals(Set.of(Role.COMPUTE), winding.nodes().get("n2").roles(), "the rest stay as they are, drained");
        assertEquals(
                io.slurmlet.model.plan.NodeWish.RECLAIM,
                winding.nodes().get("c0").nodeStates().get("n1"));
        assertEquals(
                io.slurmlet.model.plan.NodeWish.PLATFORMS,
                winding.nodes().get("c0").nodeStates().get("n2"));

        var done = Planner.plan(
                off,
                machines,
                KEY,
                new Planner.Lent(
                        Set.of(),
                        Set.of(),
                        Set.of("n1", "n2"),
                        Planner.leaving(off, Set.of(), Set.of("n1", "n2"), machines)));
        done.nodes().values().forEach(p -> assertEquals(Set.of(), p.roles(), p.node()));
    }

    @Test
    void nothingIsKeptWhereNoSlurmCanRun() {
        var machines = inventory("24.11.5", "c0", "n1");
        SlurmSettings noController =
                new SlurmSettings(false, "lab", "", List.of("n1"), false, List.of("n1"), null, null, null, false, null);
        assertEquals(Set.of(), Planner.leaving(noController, Set.of("n1"), Set.of("n1"), machines));
        SlurmSettings gone = new SlurmSettings(
                false, "lab", "c9", List.of("n1"), false, List.of("n1"), null, null, null, false, null);
        assertEquals(
                Set.of(), Planner.leaving(gone, Set.of("n1"), Set.of("n1"), machines), "the controller has no agent");
        SlurmSettings on = new SlurmSettings(
                true, "lab", "c0", List.of("n1"), false, List.of("n1"), null, null, null, false, null);
        assertEquals(Set.of(), Planner.leaving(on, Set.of("n1"), Set.of("n1"), machines), "still named");
        SlurmSettings out =
                new SlurmSettings(true, "lab", "c0", List.of(), false, List.of(), null, null, null, false, null);
        assertEquals(Set.of("n1"), Planner.leaving(out, Set.of("n1"), Set.of("n1"), machines));
        assertEquals(Set.of(), Planner.leaving(out, Set.of("n7"), Set.of("n7"), machines), "a node without an agent");
        assertEquals(Set.of(), Planner.leaving(out, Set.of("n1"), Set.of(), machines), "a node slurmctld never had");
    }

    @Test
    void aControllerWhoseSlurmCannotReadItsSavedStateIsToldWhatToDoAndSlurmctldIsNotStarted() {
        var machines = inventory("24.11.5", "c0", "n1");
        machines.put("c0", machines.get("c0").withSlurmctldState(38 << 8));
        var plans = Planner.plan(settings(false, "n1"), machines, KEY);
        assertEquals(List.of("munge"), plans.nodes().get("c0").slurm().services(), "no slurmctld to exit at its start");
        assertEquals(List.of("munge", "slurmd"), plans.nodes().get("n1").slurm().services());
        Problem p = plans.problems().stream()
                .filter(x -> x.key().equals("controller"))
                .findFirst()
                .orElseThrow();
        assertEquals("c0", p.value());
        assertTrue(
                p.message()
                        .startsWith(
                                "slurmctld's saved state in /var/lib/slurm/slurmctld on c0 was written by Slurm 22.05"),
                p.message());
        machines.put("c0", machines.get("c0").withSlurmctldState(42 << 8));
        assertEquals(
                List.of("munge", "slurmctld"),
                Planner.plan(settings(false, "n1"), machines, KEY)
                        .nodes()
                        .get("c0")
                        .slurm()
                        .services());

        // Before an OS upgrade: 22.05 installed and its state, 24.11 the package manager's candidate.
        var before = inventory("22.05.8", "c0", "n1");
        before.put("c0", before.get("c0").withSlurmctldState(38 << 8).withSlurmctldCandidate("24.11.5"));
        var warned = Planner.plan(settings(false, "n1"), before, KEY);
        assertEquals(
                List.of("munge", "slurmctld"), warned.nodes().get("c0").slurm().services(), "22.05 runs on its state");
        assertTrue(
                warned.notes().stream()
                        .anyMatch(n -> n.startsWith("c0: the package manager would upgrade slurmctld to 24.11, "
                                + "which reads only the state of 23.02 or later")),
                warned.notes().toString());
        assertTrue(warned.problems().isEmpty(), warned.problems().toString());
    }

    /** The nodes a slurm.conf names, host lists expanded. */
    private static java.util.List<String> slurmConfNodes(String slurmConf) {
        return io.slurmlet.agent.slurm.ReconfigureTable.nodeNames(slurmConf);
    }
}
