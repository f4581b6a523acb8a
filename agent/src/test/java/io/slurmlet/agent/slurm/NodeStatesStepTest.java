package io.slurmlet.agent.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.NodeWish;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodeStatesStepTest {

    static final NodeWish NOT_LENT = NodeWish.PLATFORMS;

    static NodePlan controller(Map<String, NodeWish> states) {
        return NodePlan.of("c0", Set.of()).withNodeStates(states);
    }

    static String node(String name, String state, String reason) {
        return "NodeName=%s Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=2 State=%s ThreadsPerCore=1 Partitions=gpu %s"
                .formatted(name, state, reason.isEmpty() ? "" : "Reason=" + reason + " [root@2026-11-30T04:00:00]");
    }

    FakeCommands slurm(String nodes, String jobs) {
        return new FakeCommands()
                .answer(NodeStatesStep.SHOW_NODES, Commands.Result.ok(nodes))
                .answer(NodeStatesStep.JOBS, Commands.Result.ok(jobs))
                .answerPrefix(List.of("scontrol", "update"), Commands.Result.ok(""));
    }

    /** As {@link #slurm}, with the nodes' answer left to the test. */
    static FakeCommands withoutNodes() {
        return new FakeCommands()
                .answer(NodeStatesStep.JOBS, Commands.Result.ok(""))
                .answerPrefix(List.of("scontrol", "update"), Commands.Result.ok(""));
    }

    @Test
    void theControllersQueuedJobsAreSeenWithTheirPartitionsAndNoneElsewhere() {
        FakeCommands c = slurm(
                node("n1", "MIXED", "") + "\n",
                "30|dave|n1|RUNNING|gpu||\n31|alice||PENDING|gpu|n[1-2]|n9\n32_[4-9]|bob||PENDING|gpu,batch||\n");
        NodeStatesStep step = new NodeStatesStep(c);
        assertEquals(null, step.queued(), "not looked yet");
        step.apply(controller(Map.of("n1", NodeWish.RESUME)));
        assertEquals(
                List.of(
                        new io.slurmlet.model.observed.QueuedJob(
                                "31", "alice", List.of("gpu"), List.of("n[1-2]", "n9")),
                        new io.slurmlet.model.observed.QueuedJob("32_[4-9]", "bob", List.of("gpu", "batch"))),
                step.queued());
        assertEquals("32_[4-9] of bob", step.queued().get(1).toString());
        assertEquals(List.of("30 of dave"), step.nodes().get(0).jobs(), "a running job is its node's");
        step.apply(NodePlan.of("n1", Set.of()));
        assertEquals(null, step.queued(), "a machine that is not the controller holds no queue");
        // One line it cannot read is left out, the rest kept, lowest ids first; a pending job with a flag is queued
        // too.
        assertEquals(
                List.of("8+0 of carol", "12_[0-12:2] of ?", "33 of bob", "40 of erin"),
                NodeStatesStep.queued(String.join(
                                "\n",
                                "31|alice||PENDING",
                                "33|bob||PENDING|gpu||",
                                "State=DOWN|x||PENDING|y||",
                                "40|erin||REQUEUE_HOLD|gpu||",
                                "12_[0-12:2]|a b||PENDING|gpu||",
                                "8+0|carol||PENDING|gpu|n1|",
                                "9|dave|n1|RUNNING|gpu||"))
                        .stream()
                        .map(Object::toString)
                        .toList());
    }

    @Test
    void lentNodesAreResumedInOneCallAndOthersDrainedInOne() {
        FakeCommands c = slurm(
                String.join(
                                "\n",
                                node("n1", "IDLE+DRAIN", "slurmlet: not lent"),
                                node("n2", "IDLE+DRAIN", "slurmlet: not lent"),
                                node("n3", "IDLE", ""),
                                node("n4", "IDLE", ""))
                        + "\n",
                "");
        Outcome o = new NodeStatesStep(c)
                .apply(controller(
                        Map.of("n1", NodeWish.RESUME, "n2", NodeWish.RESUME, "n3", NOT_LENT, "n4", NOT_LENT)));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertTrue(
                c.log().contains(List.of("scontrol", "update", "nodename=n[1-2]", "state=idle")),
                c.log().toString());
        assertTrue(
                c.log()
                        .contains(List.of(
                                "scontrol", "update", "nodename=n[3-4]", "state=drain", "reason=slurmlet: not lent")),
                c.log().toString());
        assertEquals(
                2,
                c.log().stream().filter(a -> a.get(1).equals("update")).count(),
                "one call per change, not per node");
    }

    /** scontrol's line of a node slurmctld drained for a GPU count, at {@code drained}, whose slurmd started at {@code started}. */
    static String gresLow(String name, String state, String drained, String started) {
        return "NodeName=%s CPUTot=2 Gres=gpu:nvidia_h200:2 State=%s Partitions=gpu SlurmdStartTime=%s Reason=gres/gpu count reported lower "
                        .formatted(name, state, started)
                + "than configured (0 < 2) [root@%s]".formatted(drained);
    }

    @Test
    void aGpuCountDrainFromASlurmdThatHadNotReadItsNewGresConfIsLiftedOnALentNodeAndNoOther() {
        // 22.05, measured (ClusterIT cell 30): the controller's reconfigure made n2's old slurmd register with the
        // gres.conf of
        // before its GPUs (0 < 2) a second before n2's agent restarted it with the new one; slurmctld kept the drain
        // after.
        FakeCommands c = slurm(
                String.join(
                                "\n",
                                gresLow("n2", "IDLE+DRAIN", "2026-12-04T22:59:13", "2026-12-04T22:59:14"),
                                gresLow("n3", "IDLE+DRAIN", "2026-12-04T22:59:13", "2026-12-04T22:59:14"),
                                gresLow("n4", "IDLE+DRAIN", "2026-12-04T22:59:14", "2026-12-04T22:59:14"),
                                gresLow("n5", "IDLE+DRAIN+INVAL", "2026-12-04T22:59:13", "2026-12-04T22:59:14"),
                                gresLow("n6", "IDLE+DRAIN", "2026-12-04T22:59:13", "2026-12-04T22:50:00"))
                        + "\n",
                "");
        NodeStatesStep step = new NodeStatesStep(c);
        Outcome o = step.apply(controller(Map.of(
                "n2",
                NodeWish.RESUME,
                "n3",
                NOT_LENT,
                "n4",
                NodeWish.RESUME,
                "n5",
                NodeWish.RESUME,
                "n6",
                NodeWish.RESUME)));
        assertTrue(
                c.log().contains(List.of("scontrol", "update", "nodename=n2", "state=idle")),
                c.log().toString());
        assertTrue(
                c.log()
                        .contains(List.of(
                                "scontrol", "update", "nodename=n3", "state=drain", "reason=slurmlet: not lent")),
                "not lent: slurmlet's own reason: " + c.log());
        assertEquals(
                2,
                c.log().stream().filter(a -> a.get(1).equals("update")).count(),
                "the slurmd that runs reported it (n4, the same second), its last registration was refused (n5), or the drain "
                        + "came after it started (n6): a GPU really missing, left drained: " + c.log());
        assertTrue(o.detail().contains("left drained by someone else: n4"), o.detail());
        assertTrue(
                step.nodes()
                        .get(0)
                        .reason()
                        .startsWith("slurmlet: slurmctld drained it for a GRES count its slurmd reported before"),
                step.nodes().get(0).reason());
    }

    @Test
    void anAdminsDrainIsNeverLiftedNorItsReasonReplaced() {
        FakeCommands c = slurm(node("n1", "IDLE+DRAIN", "bad dimm, ticket 42") + "\n", "");
        NodeStatesStep step = new NodeStatesStep(c);
        Outcome lend = step.apply(controller(Map.of("n1", NodeWish.RESUME)));
        Outcome unlend = step.apply(controller(Map.of("n1", NOT_LENT)));
        assertTrue(
                c.log().stream().noneMatch(a -> a.get(1).equals("update")),
                c.log().toString());
        assertTrue(lend.detail().contains("left drained by someone else: n1 (\"bad dimm, ticket 42\")"), lend.detail());
        assertEquals(Outcome.Kind.UNCHANGED, unlend.kind());
        assertEquals("bad dimm, ticket 42", step.nodes().get(0).reason());
    }

    @Test
    void aReclaimTakenBackWhileAJobRunsResumesKeepingTheJobAndAReasonChangeIsOneUpdate() {
        FakeCommands c = slurm(
                String.join(
                                "\n",
                                node("n1", "MIXED+DRAIN", "slurmlet: reclaiming for the platform"),
                                node("n2", "IDLE+DRAIN", "slurmlet: not lent"))
                        + "\n",
                "1234|alice|n1\n");
        NodeStatesStep step = new NodeStatesStep(c);
        step.apply(controller(Map.of("n1", NodeWish.RESUME, "n2", NodeWish.RECLAIM)));
        assertTrue(
                c.log().contains(List.of("scontrol", "update", "nodename=n1", "state=resume")),
                c.log().toString());
        assertTrue(c.log()
                .contains(List.of(
                        "scontrol",
                        "update",
                        "nodename=n2",
                        "state=drain",
                        "reason=slurmlet: reclaiming for the platform")));
        assertEquals(List.of("1234 of alice"), step.nodes().get(0).jobs());
    }

    @Test
    void asPlannedNothingIsCalledAndAFailedUpdateSaysWhatScontrolPrinted() {
        FakeCommands c =
                slurm(node("n1", "IDLE", "") + "\n" + node("n2", "IDLE+DRAIN", "slurmlet: not lent") + "\n", "");
        NodeStatesStep step = new NodeStatesStep(c);
        assertEquals(
                Outcome.Kind.UNCHANGED,
                step.apply(controller(Map.of("n1", NodeWish.RESUME, "n2", NOT_LENT)))
                        .kind());
        assertEquals(2, c.log().size(), "only the two reads");
        c.answerPrefix(
                List.of("scontrol", "update"),
                new Commands.Result(1, "", "slurm_update error: Invalid node name specified"));
        Outcome o = step.apply(controller(Map.of("n1", NOT_LENT, "n2", NOT_LENT)));
        assertTrue(o.failed() && o.detail().contains("Invalid node name specified"), o.toString());
    }

    /**
     * Measured on 24.11 (ClusterIT trixie, a key that restarts slurmctld): the controller's agent read
     * the nodes a moment after slurmctld's restart and scontrol said "slurm_load_node error: Connection
     * reset by peer"; the step failed and status said so for a second. A slurmctld starting again is
     * asked again; what it says when it is up and refuses is not.
     */
    @Test
    void aSlurmctldStartingAgainIsAskedAgainAndARealErrorIsNot() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        FakeCommands c = withoutNodes()
                .answerPrefix(
                        NodeStatesStep.SHOW_NODES,
                        call -> asked.incrementAndGet() < 3
                                ? new Commands.Result(1, "", "slurm_load_node error: Connection reset by peer")
                                : Commands.Result.ok(node("n1", "IDLE+DRAIN", "slurmlet: not lent") + "\n"));
        NodeStatesStep step = new NodeStatesStep(c);
        Outcome o = step.apply(controller(Map.of("n1", NodeWish.RESUME)));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertEquals(4, asked.get(), "asked three times until slurmctld answered, once more to read back the update");
        FakeCommands refusing = withoutNodes()
                .answerPrefix(
                        NodeStatesStep.SHOW_NODES,
                        new Commands.Result(1, "", "slurm_load_node error: Access/permission denied"));
        Outcome failed = new NodeStatesStep(refusing).apply(controller(Map.of("n1", NodeWish.RESUME)));
        assertTrue(failed.failed() && failed.detail().contains("Access/permission denied"), failed.toString());
        assertEquals(
                1,
                refusing.log().stream()
                        .filter(NodeStatesStep.SHOW_NODES::equals)
                        .count(),
                "asked once");
    }

    @Test
    void aResumedNodeThatKeepsOurDrainReasonShowsThatItIsLentInstead() {
        // Slurm 24.11 keeps the reason after state=idle or state=resume (FINDINGS.md): idle, and still "not lent".
        FakeCommands c = slurm(
                String.join(
                                "\n",
                                node("n1", "IDLE", "slurmlet: not lent"),
                                node("n2", "IDLE", "slurmlet: lent"),
                                node("n3", "IDLE", "bad dimm, ticket 42"),
                                node("n4", "IDLE", ""))
                        + "\n",
                "");
        NodeStatesStep step = new NodeStatesStep(c);
        Outcome o = step.apply(controller(
                Map.of("n1", NodeWish.RESUME, "n2", NodeWish.RESUME, "n3", NodeWish.RESUME, "n4", NodeWish.RESUME)));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=n1", "reason=slurmlet: lent")),
                c.log().stream().filter(a -> a.get(1).equals("update")).toList(),
                "only our stale reason is replaced, and no state");
        assertTrue(
                o.detail()
                        .contains(
                                "n1: the drain's reason, which this Slurm keeps after a resume, replaced by \"slurmlet: lent\""),
                o.detail());
    }

    @Test
    void notTheControllerNothingIsRead() {
        FakeCommands c = new FakeCommands();
        assertEquals(
                Outcome.Kind.UNCHANGED,
                new NodeStatesStep(c).apply(controller(Map.of())).kind());
        assertTrue(c.log().isEmpty());
    }

    @Test
    void aNodeSomeoneElseSetDownIsNeitherDrainedOverNorResumed() {
        FakeCommands c =
                slurm(node("n1", "DOWN", "bad DIMM") + "\n" + node("n2", "IDLE", "slurmlet: not lent") + "\n", "");
        NodeStatesStep step = new NodeStatesStep(c);
        Outcome unlent = step.apply(controller(Map.of("n1", NOT_LENT, "n2", NOT_LENT)));
        assertTrue(
                c.log()
                        .contains(List.of(
                                "scontrol", "update", "nodename=n2", "state=drain", "reason=slurmlet: not lent")),
                "an idle node's stale reason (24.11) holds nothing: " + c.log());
        assertTrue(
                c.log().stream().noneMatch(a -> a.contains("nodename=n1")),
                c.log().toString());
        assertTrue(unlent.detail().contains("left drained by someone else: n1 (\"bad DIMM\")"), unlent.detail());
        step.apply(controller(Map.of("n1", NodeWish.RESUME)));
        assertTrue(
                c.log().stream().noneMatch(a -> a.contains("nodename=n1")),
                "a DOWN with an admin's reason is never resumed");
    }

    @Test
    void statesNotYetAsPlannedAreSaidSoTheControllerLooksAgainSoon() {
        // slurmctld answers the resume but still shows the reason it keeps (24.11), or the node drained.
        FakeCommands c = slurm(node("n1", "IDLE+DRAIN", "slurmlet: not lent") + "\n", "");
        NodeStatesStep step = new NodeStatesStep(c);
        NodePlan lend = controller(Map.of("n1", NodeWish.RESUME));
        assertFalse(step.asPlanned(lend), "not applied yet");
        step.apply(lend);
        assertFalse(step.asPlanned(lend), "still drained as slurmctld shows it");
        c.answer(NodeStatesStep.SHOW_NODES, Commands.Result.ok(node("n1", "IDLE", "slurmlet: not lent") + "\n"));
        step.apply(lend);
        c.answer(NodeStatesStep.SHOW_NODES, Commands.Result.ok(node("n1", "IDLE", "slurmlet: lent") + "\n"));
        step.apply(lend);
        assertTrue(step.asPlanned(lend));
        c.answer(
                NodeStatesStep.SHOW_NODES,
                Commands.Result.ok(node("n1", "DOWN+DRAIN+NOT_RESPONDING", "slurmlet: not lent") + "\n"));
        step.apply(lend);
        assertTrue(step.asPlanned(lend), "a node that does not respond is Slurm's to bring back: not watched");
        assertTrue(step.asPlanned(controller(Map.of())), "not the controller");
    }
}
