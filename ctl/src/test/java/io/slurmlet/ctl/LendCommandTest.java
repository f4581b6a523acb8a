package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.conflict;
import static io.slurmlet.ctl.StubLeader.document;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** lend and unlend: all the nodes in one write onto the revision read; a node already so is not written. */
class LendCommandTest {

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader().on("GET", "/v1/slurm/settings", document(7, SETTINGS));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void lendAppendsTheNodesInOrderInOneWrite() {
        leader.on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of("gpu1", "gpu3", "gpu2"))));
        var r = ctl.run("slurm", "lend", "gpu3", "gpu2");
        assertEquals(0, r.exit(), r::toString);
        var patch = leader.requests("PATCH").get(0);
        assertEquals("{\"lent\":[\"gpu1\",\"gpu3\",\"gpu2\"]}", patch.body());
        assertEquals("\"7\"", patch.header("If-Match"));
        assertEquals("application/merge-patch+json", patch.header("Content-Type"));
        assertEquals("lent gpu3, gpu2 (revision 8)\n", r.out());
    }

    @Test
    void aNodeAlreadyLentIsSaidAndNotWritten() {
        var r = ctl.run("slurm", "lend", "gpu1");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("gpu1 is already lent\nnothing to change (revision 7)\n", r.out());
        assertEquals(List.of(), leader.requests("PATCH"));
    }

    @Test
    void lendingSomeAlreadyLentWritesTheOthers() {
        leader.on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of("gpu1", "gpu2"))));
        var r = ctl.run("slurm", "lend", "GPU1", "gpu2", "gpu2");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"lent\":[\"gpu1\",\"gpu2\"]}",
                leader.requests("PATCH").get(0).body());
        assertEquals("GPU1 is already lent\nlent gpu2 (revision 8)\n", r.out());
    }

    @Test
    void aConflictIsReadAgainAndRetried() {
        leader.on(
                        "GET",
                        "/v1/slurm/settings",
                        document(7, SETTINGS),
                        document(9, SETTINGS.withLent(List.of("gpu1", "gpu3"))))
                .on(
                        "PATCH",
                        "/v1/slurm/settings",
                        conflict(9),
                        document(10, SETTINGS.withLent(List.of("gpu1", "gpu3", "gpu2"))));
        var r = ctl.run("slurm", "lend", "gpu2");
        assertEquals(0, r.exit(), r::toString);
        var patches = leader.requests("PATCH");
        assertEquals(
                List.of("\"7\"", "\"9\""),
                patches.stream().map(p -> p.header("If-Match")).toList());
        assertEquals("{\"lent\":[\"gpu1\",\"gpu2\"]}", patches.get(0).body());
        assertEquals(
                "{\"lent\":[\"gpu1\",\"gpu3\",\"gpu2\"]}",
                patches.get(1).body(),
                "built again from the settings read again");
        assertEquals("lent gpu2 (revision 10)\n", r.out());
    }

    @Test
    void conflictsThatDoNotStopFailSayingToRetry() {
        leader.on("PATCH", "/v1/slurm/settings", conflict(12));
        var r = ctl.run("slurm", "lend", "gpu2");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(Leader.ATTEMPTS, leader.requests("PATCH").size());
        assertEquals(
                "someone else changed the settings 5 times while ctl tried to change them (the leader is at revision 12 now): "
                        + "run the command again\n",
                r.err());
    }

    @Test
    void unlendRemovesTheNodes() {
        leader.on("GET", "/v1/slurm/settings", document(7, SETTINGS.withLent(List.of("gpu1", "gpu2", "gpu3"))))
                .on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of("gpu2"))));
        var r = ctl.run("slurm", "unlend", "gpu1", "gpu3");
        assertEquals(0, r.exit(), r::toString);
        var patch = leader.requests("PATCH").get(0);
        assertEquals("{\"lent\":[\"gpu2\"]}", patch.body());
        assertEquals("\"7\"", patch.header("If-Match"));
        assertEquals("unlent gpu1, gpu3 (revision 8)\n", r.out());
    }

    @Test
    void unlendingTheLastNodeSendsAnEmptyList() {
        leader.on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of())));
        var r = ctl.run("slurm", "unlend", "gpu1");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("{\"lent\":[]}", leader.requests("PATCH").get(0).body());
    }

    @Test
    void aNodeNotLentIsSaidAndNotWritten() {
        var r = ctl.run("slurm", "unlend", "gpu2");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("gpu2 is not lent\nnothing to change (revision 7)\n", r.out());
        assertEquals(List.of(), leader.requests("PATCH"));
    }

    @Test
    void withJsonStdoutHoldsOnlyTheLeadersAnswer() {
        var r = ctl.run("slurm", "lend", "gpu1", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(StubLeader.json(new io.slurmlet.model.api.SettingsDocument(7, SETTINGS)) + "\n", r.out());
        assertEquals("gpu1 is already lent\n", r.err());
    }

    @Test
    void aNodeIsNeeded() {
        var r = ctl.run("slurm", "lend");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("Missing required parameter: 'NODE'"), r::toString);
    }
}
