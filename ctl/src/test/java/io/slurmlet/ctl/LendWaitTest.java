package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.document;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.NodeLending.Transition;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SlurmNodeState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * lend and unlend with --wait: the change is stored as without it, then each new transition of the
 * nodes named is printed until all are there (exit 0), or what keeps them is (exit 1).
 */
class LendWaitTest {

    static final String NODES = "/v1/slurm/nodes";
    /** gpu2's past: lent once and given back, before these tests' commands. */
    static final List<Transition> PAST = List.of(
            new Transition("platform", "lending", "2026-11-29T10:00:00Z", "lent in the settings"),
            new Transition("lending", "lent", "2026-11-29T10:00:05Z", "no drain hook: free at once"),
            new Transition("lent", "reclaiming", "2026-11-29T11:00:00Z", "unlent in the settings"),
            new Transition(
                    "reclaiming",
                    "platform",
                    "2026-11-29T11:00:04Z",
                    "no job left; no release hook: the platform's again"));

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
    void lendWaitPrintsEachNewTransitionUntilTheNodeIsLent() {
        leader.on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of("gpu1", "gpu2"))))
                .on(
                        "GET",
                        NODES,
                        nodes(gpu2("platform", false, "", PAST)),
                        nodes(gpu2("platform", true, "", PAST)),
                        nodes(gpu2(
                                "lending",
                                true,
                                "the platform's drain hook runs",
                                then(
                                        PAST,
                                        new Transition(
                                                "platform",
                                                "lending",
                                                "2026-11-30T04:00:01.250Z",
                                                "lent in the settings")))),
                        nodes(gpu2(
                                "lent",
                                true,
                                "",
                                then(
                                        PAST,
                                        new Transition(
                                                "platform",
                                                "lending",
                                                "2026-11-30T04:00:01.250Z",
                                                "lent in the settings"),
                                        new Transition(
                                                "lending",
                                                "lent",
                                                "2026-11-30T04:00:09Z",
                                                "the drain hook says the platform has freed it")))));
        var r = ctl.run("slurm", "lend", "gpu2", "--wait");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                lent gpu2 (revision 8)
                gpu2: platform → lending (lent in the settings) at 2026-11-30T04:00:01Z
                gpu2: lending → lent (the drain hook says the platform has freed it) at 2026-11-30T04:00:09Z
                now lent: gpu2
                """, r.out());
        assertEquals("", r.err());
        List<String> order =
                leader.requests.stream().map(q -> q.method() + " " + q.path()).toList();
        assertEquals(
                List.of(
                        "GET " + NODES,
                        "GET /v1/slurm/settings",
                        "PATCH /v1/slurm/settings",
                        "GET " + NODES,
                        "GET " + NODES,
                        "GET " + NODES),
                order,
                "the nodes are read before the change, then until it is done");
    }

    @Test
    void aNodeAlreadyThereEndsTheWaitAtOnce() {
        leader.on(
                "GET",
                NODES,
                nodes(new NodeLending("gpu1", "lent", true, "2026-11-30T04:00:00Z", "", "", "", "", null, List.of())));
        var r = ctl.run("slurm", "lend", "GPU1", "--wait");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("GPU1 is already lent\nnothing to change (revision 7)\nnow lent: GPU1\n", r.out());
    }

    @Test
    void unlendWaitSaysWhatIsInTheWayAtTheTimeout() {
        leader.on("GET", "/v1/slurm/settings", document(7, SETTINGS.withLent(List.of("gpu1", "gpu2"))))
                .on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of())));
        Transition gpu1Back = new Transition("lent", "reclaiming", "2026-11-30T05:00:00Z", "unlent in the settings");
        leader.on(
                "GET",
                NODES,
                nodes(lentNode("gpu1", List.of()), lentNode("gpu2", List.of())),
                nodes(
                        new NodeLending(
                                "gpu1",
                                "reclaiming",
                                false,
                                "2026-11-30T05:00:00Z",
                                "job 1234 of alice still running",
                                "",
                                "",
                                "",
                                new SlurmNodeState(
                                        "gpu1", "MIXED+DRAIN", "slurmlet: reclaiming", List.of("1234 of alice")),
                                List.of(gpu1Back)),
                        new NodeLending(
                                "gpu2",
                                "lent",
                                false,
                                "2026-11-29T10:00:00Z",
                                "",
                                "the release hook failed: exit 3",
                                "2026-11-30T05:00:02Z",
                                "",
                                null,
                                List.of())));
        long began = System.nanoTime();
        var r = ctl.run("slurm", "unlend", "gpu1", "gpu2", "--wait", "--timeout", "300ms");
        long tookMillis = (System.nanoTime() - began) / 1_000_000;
        assertEquals(1, r.exit(), r::toString);
        assertEquals("""
                unlent gpu1, gpu2 (revision 8)
                gpu1: lent → reclaiming (unlent in the settings) at 2026-11-30T05:00:00Z
                """, r.out(), "each transition once, however many times it is read");
        assertEquals("""
                gpu1 is still reclaiming: job 1234 of alice still running
                gpu2 is still lent: the release hook failed: exit 3
                gave up after 300ms (--timeout): the change is stored and the leader goes on with it; follow it with 'ctl slurm nodes'
                """, r.err());
        assertTrue(tookMillis >= 300 && tookMillis < 3000, () -> "took " + tookMillis + " ms");
    }

    @Test
    void aLeaderLostDuringTheWaitIsSaid() throws Exception {
        leader.on("PATCH", "/v1/slurm/settings", document(8, SETTINGS.withLent(List.of("gpu1", "gpu2"))))
                .on(
                        "GET",
                        NODES,
                        nodes(gpu2("platform", false, "", List.of())),
                        nodes(gpu2("lending", true, "", List.of())));
        CompletableFuture<CtlRunner.Result> run =
                CompletableFuture.supplyAsync(() -> ctl.run("slurm", "lend", "gpu2", "--wait"));
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> leader.requests("GET").stream()
                                .filter(q -> q.path().equals(NODES))
                                .count()
                        >= 3);
        leader.close();
        var r = run.get(10, TimeUnit.SECONDS);
        assertEquals(1, r.exit(), r::toString);
        assertEquals("lent gpu2 (revision 8)\n", r.out());
        assertTrue(
                r.err()
                        .startsWith(
                                "the change is stored, but ctl lost the leader while waiting: cannot reach the leader at "
                                        + leader.url()),
                r::toString);
    }

    @Test
    void aLeaderWithoutNodesFailsTheWaitBeforeAnythingIsStored() {
        var r = ctl.run("slurm", "lend", "gpu2", "--wait");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith("nothing was changed: --wait cannot follow the nodes: the leader at " + leader.url()
                                + " has no GET /v1/slurm/nodes (HTTP 404"),
                r::toString);
        assertEquals(List.of(), leader.requests("PATCH"));
    }

    @Test
    void withJsonStdoutHoldsOnlyTheLeadersAnswer() {
        SettingsDocument after = new SettingsDocument(8, SETTINGS.withLent(List.of("gpu1", "gpu2")));
        leader.on("PATCH", "/v1/slurm/settings", document(8, after.settings()))
                .on(
                        "GET",
                        NODES,
                        nodes(gpu2("platform", false, "", List.of())),
                        nodes(gpu2(
                                "lent",
                                true,
                                "",
                                List.of(new Transition(
                                        "lending", "lent", "2026-11-30T04:00:09Z", "no drain hook: free at once")))));
        var r = ctl.run("slurm", "lend", "gpu2", "--wait", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(StubLeader.json(after) + "\n", r.out());
        assertEquals(
                "gpu2: lending → lent (no drain hook: free at once) at 2026-11-30T04:00:09Z\nnow lent: gpu2\n",
                r.err());
    }

    @Test
    void aBadTimeoutIsBadUsage() {
        var r = ctl.run("slurm", "unlend", "gpu1", "--wait", "--timeout", "10x");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith("Invalid value for option '--timeout': '10x' is not a duration ctl takes: "
                                + "write it as 30s, 5m, 1h or 1h30m\n"),
                r::toString);
        assertTrue(r.err().contains("See 'ctl slurm unlend --help'."), r::toString);
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void waitWithDryRunIsBadUsage() {
        var r = ctl.run("slurm", "lend", "gpu2", "--wait", "--dry-run");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err().startsWith("--wait follows a stored change, and --dry-run stores none: give one of them\n"),
                r::toString);
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void timeoutWithoutWaitIsBadUsage() {
        var r = ctl.run("slurm", "lend", "gpu2", "--timeout", "5m");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err().startsWith("--timeout is how long --wait waits: add --wait, or drop --timeout\n"), r::toString);
        assertEquals(List.of(), leader.requests);
    }

    private static StubLeader.Reply nodes(NodeLending... nodes) {
        return StubLeader.ok(StubLeader.json(List.of(nodes)));
    }

    private static NodeLending gpu2(String phase, boolean wished, String waitingFor, List<Transition> transitions) {
        return new NodeLending(
                "gpu2",
                phase,
                wished,
                "2026-11-30T04:00:00Z",
                waitingFor,
                "",
                "",
                "",
                new SlurmNodeState("gpu2", "IDLE+DRAIN", "slurmlet: on the platform", List.of()),
                transitions);
    }

    private static NodeLending lentNode(String name, List<Transition> transitions) {
        return new NodeLending(
                name,
                "lent",
                true,
                "2026-11-29T10:00:00Z",
                "",
                "",
                "",
                "",
                new SlurmNodeState(name, "MIXED", "", List.of("1234 of alice")),
                transitions);
    }

    private static List<Transition> then(List<Transition> past, Transition... next) {
        List<Transition> all = new ArrayList<>(past);
        all.addAll(List.of(next));
        return all;
    }
}
