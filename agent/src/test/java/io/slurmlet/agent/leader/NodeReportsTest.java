package io.slurmlet.agent.leader;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.StepStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeReportsTest {

    @Test
    void aStepsLastErrorOutlivesTheAgentThatForgotIt() {
        NodeReports reports = new NodeReports();
        reports.put(new NodeReport(
                "n3",
                4,
                List.of(
                        new StepStatus("slurm", "failed", "slurmd is masked", "t1", "slurmd is masked", "t1"),
                        new StepStatus("munge", "unchanged", "ok", "t1", "", ""))));
        reports.put(new NodeReport(
                "n3",
                4,
                List.of(
                        new StepStatus("slurm", "changed", "started slurmd", "t2", "", ""),
                        new StepStatus("munge", "unchanged", "ok", "t2", "", ""))));
        StepStatus slurm = reports.get("n3").orElseThrow().report().steps().get(0);
        assertEquals("changed", slurm.state());
        assertEquals("slurmd is masked", slurm.lastError());
        assertEquals("t1", slurm.lastErrorAt());
        assertEquals("", reports.get("n3").orElseThrow().report().steps().get(1).lastError());
    }

    @Test
    void aReportOfAMachineRemovedMeanwhileIsNotKept() {
        NodeReports reports = new NodeReports();
        NodeReport report = new NodeReport("n3", 4, List.of(new StepStatus("munge", "unchanged", "ok", "t1", "", "")));
        assertEquals(false, reports.put(report, () -> false), "its credential was revoked since it was checked");
        assertEquals(java.util.Optional.empty(), reports.get("n3"));
        assertEquals(true, reports.put(report, () -> true));
        reports.forget("n3");
        assertEquals(false, reports.put(report, () -> false));
        assertEquals(java.util.Optional.empty(), reports.get("n3"), "a removed machine's report is not put back");
    }

    /** Returns once the clock is past the moment {@code node}'s last report was received: the next report is fresher. */
    static void clockPasses(NodeReports reports, String node) {
        java.time.Instant at = reports.get(node).orElseThrow().at();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> java.time.Instant.now().isAfter(at));
    }

    static NodeReport machine(String node, String... jobs) {
        return new NodeReport(
                node, 1, List.of(), List.of(), io.slurmlet.model.observed.Observed.NOTHING.withJobs(List.of(jobs)));
    }

    static NodeReport controller(String... jobsOnN1) {
        return new NodeReport(
                "c0",
                1,
                List.of(),
                List.of(new io.slurmlet.model.api.SlurmNodeState("n1", "ALLOCATED", "", List.of(jobsOnN1))));
    }

    @Test
    void theControllersJobsByNodeAreWhatItsLookAtEachNodeSays() {
        NodeReports reports = new NodeReports();
        assertEquals(java.util.Map.of(), reports.jobsReportedByNode("c0"), "no report from the controller yet");
        reports.put(new NodeReport(
                "c0",
                1,
                List.of(),
                List.of(
                        new io.slurmlet.model.api.SlurmNodeState(
                                "n1", "MIXED", "", List.of("17 of alice", "18 of bob")),
                        new io.slurmlet.model.api.SlurmNodeState("n2", "IDLE", "", List.of()),
                        new io.slurmlet.model.api.SlurmNodeState(
                                "n1", "MIXED", "", List.of("18 of bob", "19 of carol")))));
        var byNode = reports.jobsReportedByNode("c0");
        for (String node : List.of("n1", "n2", "n3")) {
            assertEquals(reports.jobsReportedBy("c0", node::equals), byNode.getOrDefault(node, List.of()), node);
        }
        assertEquals(List.of("17 of alice", "18 of bob", "19 of carol"), byNode.get("n1"));
        assertEquals(java.util.Map.of(), reports.jobsReportedByNode(null));
    }

    @Test
    void theJobsThatRunAreTheFreshestWordOnEach() throws Exception {
        NodeReports reports = new NodeReports();
        reports.put(controller("12 of alice"));
        clockPasses(reports, "c0");
        reports.put(machine("n1", "12", "14"));
        assertEquals(List.of("12 of alice", "14"), reports.jobsRunning("c0"), "14 started since the controller looked");
        clockPasses(reports, "n1");
        reports.put(controller("14 of bob"));
        assertEquals(
                List.of("14 of bob"), reports.jobsRunning("c0"), "12 ended: the controller said so after the machine");
        clockPasses(reports, "c0");
        reports.put(machine("n1"));
        assertEquals(
                List.of("14 of bob"), reports.jobsRunning("c0"), "the controller's list stands until it looks again");
        assertEquals(List.of(), new NodeReports().jobsRunning(null));
    }
}
