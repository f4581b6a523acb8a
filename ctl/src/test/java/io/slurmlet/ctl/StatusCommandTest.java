package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.SlurmStatus.NodeStatus;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.settings.Problem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusCommandTest {

    static final SlurmStatus STATUS = new SlurmStatus(
            7,
            true,
            "slurmlet",
            "head1",
            "gpu",
            List.of(
                    new NodeStatus("head1", List.of("slurmctld"), false, "24.11.5"),
                    new NodeStatus(
                            "gpu1",
                            List.of("slurmd"),
                            true,
                            "24.11.5",
                            "2026-11-30T04:00:00Z",
                            3,
                            List.of(
                                    new StepStatus("facts", "unchanged", "", "", "", ""),
                                    new StepStatus("packages", "unchanged", "", "", "", ""),
                                    new StepStatus(
                                            "munge",
                                            "changed",
                                            "restarted munge",
                                            "",
                                            "munged did not start",
                                            "2026-11-30T03:59:00Z"),
                                    new StepStatus(
                                            "slurm",
                                            "failed",
                                            "slurmd did not start",
                                            "",
                                            "slurmd did not start",
                                            "2026-11-30T04:00:00Z"))),
                    new NodeStatus("gpu2", List.of("slurmd"), false, "")),
            List.of(),
            List.of("not in Slurm until their agents report their machines: gpu2"));

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
    void showsTheClusterThenARowPerNode() {
        leader.on("GET", "/v1/slurm/status", StubLeader.ok(StubLeader.json(STATUS)));
        var r = ctl.run("slurm", "status");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                cluster     slurmlet
                enabled     yes
                controller  head1
                partition   gpu
                revision    7

                NODE   ROLES      LENT  SLURM    PLAN  FACTS  PACKAGES  MUNGE  SLURM
                head1  slurmctld  no    24.11.5  -     -      -         -      -
                gpu1   slurmd     yes   24.11.5  3     ok     ok        ok     FAILED
                gpu2   slurmd     no    -        -     -      -         -      -

                last errors:
                  gpu1 munge, since recovered: munged did not start (2026-11-30T03:59:00Z)
                  gpu1 slurm: slurmd did not start (2026-11-30T04:00:00Z)

                notes:
                  not in Slurm until their agents report their machines: gpu2
                """, r.out());
    }

    @Test
    void theColumnsAreTheStepsTheAgentsReportInTheOrderTheyRun() {
        List<NodeStatus> nodes = List.of(
                new NodeStatus("a", List.of("slurmd"), true, "", "", 1, List.of(step("facts"), step("slurm"))),
                new NodeStatus(
                        "b",
                        List.of("slurmd"),
                        true,
                        "",
                        "",
                        1,
                        List.of(step("facts"), step("munge"), step("slurm"), step("pam"))),
                new NodeStatus("c", List.of("slurmd"), true, "", "", 1, List.of(step("containers"))));
        assertEquals(List.of("containers", "facts", "munge", "slurm", "pam"), StatusCommand.steps(nodes));
    }

    @Test
    void aMachineBehindTheLeadersPlanIsApplyingIt() {
        NodeStatus behind = new NodeStatus(
                "a", List.of("slurmd"), true, "", "2026-11-30T04:00:00Z", 3, List.of(step("slurm")), null, 0, 5);
        assertEquals("applying 5 (has 3)", StatusCommand.plan(behind));
        assertFalse(behind.settled());
        NodeStatus fresh = new NodeStatus("b", List.of("slurmd"), true, "", "", 0, List.of(), null, 0, 2);
        assertEquals("applying 2", StatusCommand.plan(fresh));
        NodeStatus applied = new NodeStatus(
                "c", List.of("slurmd"), true, "", "2026-11-30T04:00:00Z", 5, List.of(step("slurm")), null, 0, 5);
        assertEquals("5", StatusCommand.plan(applied));
        assertTrue(applied.settled());
        SlurmStatus planning = new SlurmStatus(9, true, "c", "a", "p", List.of(applied), List.of(), List.of(), 8);
        assertFalse(planning.settled(), "the leader has not planned revision 9 yet");
        assertTrue(new SlurmStatus(9, true, "c", "a", "p", List.of(applied), List.of(), List.of(), 9).settled());
    }

    static StepStatus step(String name) {
        return new StepStatus(name, "unchanged", "", "", "", "");
    }

    @Test
    void showsTheProblemsOfTheStoredSettings() {
        SlurmStatus withProblems = new SlurmStatus(
                3,
                false,
                "slurmlet",
                "",
                "gpu",
                List.of(),
                List.of(new Problem(
                        "controller",
                        "",
                        "controller is empty: name the node that runs slurmctld, as controller=NODE")),
                List.of());
        leader.on("GET", "/v1/slurm/status", StubLeader.ok(StubLeader.json(withProblems)));
        var r = ctl.run("slurm", "status");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                cluster     slurmlet
                enabled     no
                controller  (empty)
                partition   gpu
                revision    3

                no nodes: name them with 'ctl slurm set nodes=NODE,…' or 'ctl slurm set all_nodes=true'

                problems:
                  controller is empty: name the node that runs slurmctld, as controller=NODE
                """, r.out());
    }

    @Test
    void jsonIsTheLeadersAnswer() {
        String body =
                "{\"revision\":7,\"enabled\":true,\"cluster_name\":\"slurmlet\",\"controller\":\"head1\",\"partition\":\"gpu\","
                        + "\"nodes\":[],\"problems\":[],\"a_key_from_a_newer_leader\":1}";
        leader.on("GET", "/v1/slurm/status", StubLeader.ok(body));
        var r = ctl.run("slurm", "status", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(body + "\n", r.out());
        assertEquals(0, ctl.run("slurm", "status").exit(), "a newer leader's extra key is no error");
    }
}
