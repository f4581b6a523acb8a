package io.slurmlet.agent.leader;

import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.StepStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class NodeReportsTest {

    @Test
    void aStepsLastErrorOutlivesTheAgentThatForgotIt() {
        NodeReports reports = new NodeReports();
        reports.put(new NodeReport("n3", 4, List.of(
                new StepStatus("slurm", "failed", "slurmd is masked", "t1", "slurmd is masked", "t1"),
                new StepStatus("munge", "unchanged", "ok", "t1", "", ""))));
        reports.put(new NodeReport("n3", 4, List.of(
                new StepStatus("slurm", "changed", "started slurmd", "t2", "", ""),
                new StepStatus("munge", "unchanged", "ok", "t2", "", ""))));
        StepStatus slurm = reports.get("n3").orElseThrow().report().steps().get(0);
        assertEquals("changed", slurm.state());
        assertEquals("slurmd is masked", slurm.lastError());
        assertEquals("t1", slurm.lastErrorAt());
        assertEquals("", reports.get("n3").orElseThrow().report().steps().get(1).lastError());
    }
}
