package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.NodeLending.Transition;
import io.slurmlet.model.api.SlurmNodeState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ctl slurm nodes}: a row per node, then the last errors; {@code -o json}: the leader's answer as sent. */
class NodesCommandTest {

    static final List<NodeLending> NODES = List.of(
            new NodeLending(
                    "gpu1",
                    "lent",
                    true,
                    "2026-11-30T04:00:01.123456Z",
                    "",
                    "",
                    "",
                    "",
                    new SlurmNodeState("gpu1", "MIXED", "", List.of("1234 of alice", "1240 of bob")),
                    List.of(
                            new Transition("platform", "lending", "2026-11-30T03:59:40Z", "lent in the settings"),
                            new Transition(
                                    "lending",
                                    "lent",
                                    "2026-11-30T04:00:01.123456Z",
                                    "the drain hook says the platform has freed it"))),
            new NodeLending(
                    "gpu2",
                    "reclaiming",
                    false,
                    "2026-11-30T05:10:00Z",
                    "job 1250 of carol still running",
                    "the release hook failed: exit 3",
                    "2026-11-30T05:09:30.5Z",
                    "pool busy\n",
                    new SlurmNodeState("gpu2", "MIXED+DRAIN", "slurmlet: reclaiming", List.of("1250 of carol")),
                    List.of()),
            new NodeLending("gpu3", "platform", false, "", "", "", "", "", null, List.of()));

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
    void showsARowPerNodeThenTheLastErrors() {
        leader.on("GET", "/v1/slurm/nodes", StubLeader.ok(StubLeader.json(NODES)));
        var r = ctl.run("slurm", "nodes");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                NODE  PHASE       LENT  SLURM        JOBS  SINCE                 WAITING FOR
                gpu1  lent        yes   MIXED        2     2026-11-30T04:00:01Z  -
                gpu2  reclaiming  no    MIXED+DRAIN  1     2026-11-30T05:10:00Z  job 1250 of carol still running
                gpu3  platform    no    -            -     -                     -

                last errors:
                  gpu2: the release hook failed: exit 3 (2026-11-30T05:09:30Z)
                """, r.out());
        assertEquals("", r.err());
    }

    @Test
    void withoutErrorsThereIsNoErrorSection() {
        leader.on("GET", "/v1/slurm/nodes", StubLeader.ok(StubLeader.json(List.of(NODES.get(0)))));
        var r = ctl.run("slurm", "nodes");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                NODE  PHASE  LENT  SLURM  JOBS  SINCE                 WAITING FOR
                gpu1  lent   yes   MIXED  2     2026-11-30T04:00:01Z  -
                """, r.out());
    }

    @Test
    void noNodesSaysHowToNameThem() {
        leader.on("GET", "/v1/slurm/nodes", StubLeader.ok("[]"));
        var r = ctl.run("slurm", "nodes");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "no nodes: name them with 'ctl slurm set nodes=NODE,…' or 'ctl slurm set all_nodes=true'\n", r.out());
    }

    @Test
    void jsonIsTheLeadersAnswerAsSent() {
        String body = "[ {\"name\":\"gpu1\", \"phase\":\"lent\", \"wished\":true, \"since\":\"2026-11-30T04:00:01Z\","
                + " \"a_key_of_a_newer_leader\":1} ]";
        leader.on("GET", "/v1/slurm/nodes", StubLeader.ok(body));
        var r = ctl.run("slurm", "nodes", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(body + "\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void anAnswerThatIsNotAListIsNotReadAsOne() {
        leader.on("GET", "/v1/slurm/nodes", StubLeader.ok("{\"name\":\"gpu1\"}"));
        var r = ctl.run("slurm", "nodes");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith(
                                "the leader at " + leader.url() + " answered GET /v1/slurm/nodes with something ctl "
                                        + "cannot read (not a JSON array)"),
                r::toString);
    }

    @Test
    void anOlderLeaderIsNamedAsSuch() {
        var r = ctl.run("slurm", "nodes");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err().startsWith("the leader at " + leader.url() + " has no GET /v1/slurm/nodes (HTTP 404"),
                r::toString);
    }
}
