package io.slurmlet.agent.leader.lending;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine on the leader's real stores: persisted phases, hooks on their own threads. */
class LendingEngineTest {

    @TempDir
    Path state;

    LendingEngine engine(
            LendingBook book, SettingsStore settings, Inventory inventory, NodeReports reports, Hooks hooks) {
        return new LendingEngine(book, settings, inventory, reports, hooks, Duration.ofSeconds(1), Clock.systemUTC());
    }

    /** Settings of controller c0 and partition gpu with these nodes, these lent. */
    static SettingsStore.Result nodes(SettingsStore settings, List<String> nodes, List<String> lent) throws Exception {
        return settings.update(
                OptionalLong.empty(),
                s -> new SlurmSettings(
                        true, "lab", "c0", nodes, false, lent, "gpu", null, null, false, null, Map.of()));
    }

    static void lend(SettingsStore settings, List<String> lent) throws Exception {
        settings.update(
                OptionalLong.empty(),
                s -> new SlurmSettings(
                        true, "lab", "c0", List.of("n1"), false, lent, "gpu", null, null, false, null, Map.of()));
    }

    static void controllerShows(NodeReports reports, SlurmNodeState n1) {
        reports.put(new NodeReport("c0", 1, List.of(), List.of(n1)));
    }

    /** The leader's inventory in {@code state}, with these machines on Slurm {@code slurm}. */
    Inventory machines(String slurm, String... names) throws Exception {
        Inventory inventory = Inventory.open(state);
        for (String n : names) {
            inventory.report(
                    TestFacts.eightCores(n).os("debian 12").slurmVersion(slurm).build());
        }
        return inventory;
    }

    /** The plans the leader would publish now, with lending as the book has it. */
    static Planner.Plans plans(SettingsStore settings, Inventory inventory, LendingBook book) {
        var s = settings.current().settings();
        return Planner.plan(
                s, inventory.all(), io.slurmlet.model.plan.MungeKey.of(new byte[64]), book.lent(s, inventory.all()));
    }

    /** n1's phase once it is {@code phase}: the engine runs its hooks on a thread of its own. */
    static Phase awaitPhase(LendingBook book, Phase phase) {
        return await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> book.get("n1").map(LendingRecord::phase).orElse(null), is(phase));
    }

    @Test
    void aLeaderRestartedInTheMiddleOfAReclaimCarriesOnAndReleasesOnce() throws Exception {
        SettingsStore settings = SettingsStore.open(state);
        Inventory inventory = Inventory.open(state);
        for (String n : List.of("c0", "n1")) {
            inventory.report(TestFacts.eightCores(n)
                    .os("debian 12")
                    .slurmVersion("22.05.8")
                    .build());
        }
        NodeReports reports = new NodeReports();
        lend(settings, List.of("n1"));
        LendingBook book = LendingBook.open(state);
        LendingEngine first = engine(
                book,
                settings,
                inventory,
                reports,
                new Hooks(new FakeCommands(), Optional.empty(), Optional.empty(), Duration.ofSeconds(5)));
        first.tick();
        assertEquals(Phase.LENT, book.get("n1").orElseThrow().phase());
        lend(settings, List.of());
        controllerShows(
                reports,
                new SlurmNodeState(
                        "n1", "MIXED+DRAIN", "slurmlet: reclaiming for the platform", List.of("7 of alice")));
        first.tick();
        assertEquals(
                "job 7 of alice still running", book.get("n1").orElseThrow().waitingFor());
        first.close();

        // The leader restarts: a new engine on the book read back from disk, now with a release hook.
        FakeCommands commands = new FakeCommands()
                .answer(List.of("platform-release", "n1"), Commands.Result.ok("n1 is the platform's"));
        LendingBook again = LendingBook.open(state);
        assertEquals(Phase.RECLAIMING, again.get("n1").orElseThrow().phase());
        LendingEngine second = engine(
                again,
                settings,
                inventory,
                reports,
                new Hooks(
                        commands,
                        Optional.empty(),
                        Optional.of(List.of("platform-release", "{node}")),
                        Duration.ofSeconds(5)));
        second.tick();
        assertEquals(Phase.RECLAIMING, again.get("n1").orElseThrow().phase(), "the job still runs");
        controllerShows(
                reports, new SlurmNodeState("n1", "IDLE+DRAIN", "slurmlet: reclaiming for the platform", List.of()));
        second.tick();
        assertEquals(Phase.PLATFORM, awaitPhase(again, Phase.PLATFORM));
        second.tick();
        second.tick();
        assertEquals(List.of(List.of("platform-release", "n1")), commands.log(), "released exactly once");
        assertEquals("n1 is the platform's", again.get("n1").orElseThrow().hookOutput());
        assertEquals(
                List.of("platform→lending", "lending→lent", "lent→reclaiming", "reclaiming→platform"),
                again.get("n1").orElseThrow().transitions().stream()
                        .map(t -> t.from() + "→" + t.to())
                        .toList());
        second.close();
    }

    @Test
    void withAllNodesANodeLentBeforeItsAgentJoinsIsLentOnceItHas() throws Exception {
        SettingsStore settings = SettingsStore.open(state);
        Inventory inventory = Inventory.open(state);
        inventory.report(TestFacts.eightCores("c0")
                .os("debian 12")
                .slurmVersion("22.05.8")
                .build());
        settings.update(
                OptionalLong.empty(),
                s -> new SlurmSettings(
                        true, "lab", "c0", List.of(), true, List.of("n9"), "gpu", null, null, false, null, Map.of()));
        LendingBook book = LendingBook.open(state);
        LendingEngine engine = engine(
                book,
                settings,
                inventory,
                new NodeReports(),
                new Hooks(new FakeCommands(), Optional.empty(), Optional.empty(), Duration.ofSeconds(5)));
        engine.tick();
        assertTrue(book.get("n9").isEmpty(), "the platform's, with nothing to say: no record");
        assertEquals(
                "lent, but its agent has not joined yet",
                engine.view().stream()
                        .filter(n -> n.name().equals("n9"))
                        .findFirst()
                        .orElseThrow()
                        .waitingFor());
        inventory.report(TestFacts.eightCores("n9")
                .os("debian 12")
                .slurmVersion("22.05.8")
                .build());
        engine.tick();
        assertEquals(Phase.LENT, book.get("n9").orElseThrow().phase());
        engine.close();
    }

    @Test
    void aLentNodeTakenOutOfTheNodesIsReclaimedFirstAndLeavesSlurmOnlyOnceItsLastJobHasEnded() throws Exception {
        SettingsStore settings = SettingsStore.open(state);
        Inventory inventory = machines("24.11.5", "c0", "n1", "n2");
        NodeReports reports = new NodeReports();
        nodes(settings, List.of("n1", "n2"), List.of("n1", "n2"));
        LendingBook book = LendingBook.open(state);
        FakeCommands commands =
                new FakeCommands().answer(List.of("platform-release", "n1"), Commands.Result.ok("released"));
        LendingEngine engine = engine(
                book,
                settings,
                inventory,
                reports,
                new Hooks(
                        commands,
                        Optional.empty(),
                        Optional.of(List.of("platform-release", "{node}")),
                        Duration.ofSeconds(5)));
        engine.tick();
        assertEquals(Phase.LENT, book.get("n1").orElseThrow().phase());

        // n1 leaves the nodes while a job runs there.
        assertEquals(
                SettingsStore.Result.Accepted.class,
                nodes(settings, List.of("n2"), List.of("n2")).getClass());
        controllerShows(reports, new SlurmNodeState("n1", "MIXED", "", List.of("7 of alice")));
        engine.tick();
        LendingRecord r = book.get("n1").orElseThrow();
        assertEquals(Phase.RECLAIMING, r.phase());
        assertEquals("job 7 of alice still running, then it leaves Slurm", r.waitingFor());
        assertEquals(
                Lending.LEAVES, r.transitions().get(r.transitions().size() - 1).why());
        var kept = plans(settings, inventory, book);
        assertTrue(
                slurmConfNodes(kept.nodes().get("c0").files().get("/etc/slurm/slurm.conf"))
                        .contains("n1"),
                "n1 stays in slurm.conf");
        assertEquals(
                io.slurmlet.model.plan.NodeWish.RECLAIM,
                kept.nodes().get("c0").nodeStates().get("n1"));
        var shown = engine.view().stream()
                .filter(n -> n.name().equals("n1"))
                .findFirst()
                .orElseThrow();
        assertEquals(false, shown.wished(), "not shown as lent");

        controllerShows(
                reports,
                new SlurmNodeState(
                        "n1", "MIXED+DRAIN", "slurmlet: reclaiming for the platform", List.of("7 of alice")));
        engine.tick();
        assertEquals(List.of(), commands.log(), "no release while the job runs");
        controllerShows(
                reports, new SlurmNodeState("n1", "IDLE+DRAIN", "slurmlet: reclaiming for the platform", List.of()));
        engine.tick();
        assertEquals(Phase.PLATFORM, awaitPhase(book, Phase.PLATFORM));
        engine.tick();
        assertEquals(List.of(List.of("platform-release", "n1")), commands.log(), "released once");
        var gone = plans(settings, inventory, book);
        assertFalse(
                slurmConfNodes(gone.nodes().get("c0").files().get("/etc/slurm/slurm.conf"))
                        .contains("n1"),
                "then slurm.conf loses it");
        assertEquals(Set.of(), gone.nodes().get("n1").roles());
        engine.close();
    }

    @Test
    void aNodeLeavingSlurmWaitsForTheQueuedJobsThatNameItAsForRunningOnes() throws Exception {
        SettingsStore settings = SettingsStore.open(state);
        Inventory inventory = machines("24.11.5", "c0", "n1", "n2");
        NodeReports reports = new NodeReports();
        nodes(settings, List.of("n1", "n2"), List.of("n1", "n2"));
        LendingBook book = LendingBook.open(state);
        LendingEngine engine = engine(
                book,
                settings,
                inventory,
                reports,
                new Hooks(new FakeCommands(), Optional.empty(), Optional.empty(), Duration.ofSeconds(5)));
        engine.tick();
        nodes(settings, List.of("n2"), List.of("n2"));
        var queued = List.of(
                new QueuedJob("55", "alice", List.of("gpu"), List.of("n1")),
                new QueuedJob("56", "bob", List.of("gpu"), List.of("n2")));
        reports.put(new NodeReport(
                "c0",
                1,
                List.of(),
                List.of(new SlurmNodeState(
                        "n1", "IDLE+DRAIN", "slurmlet: reclaiming for the " + "platform", List.of())),
                new Observed(null, null, null, List.of(), null, null, null, queued)));
        engine.tick();
        LendingRecord r = book.get("n1").orElseThrow();
        assertEquals(Phase.RECLAIMING, r.phase());
        assertEquals(
                "job 55 of alice in the queue names this node (-w or -x), and Slurm fails a job whose node leaves slurm.conf: it "
                        + "leaves Slurm once it has gone (scancel it, or name the node in nodes again)",
                r.waitingFor());
        assertTrue(
                slurmConfNodes(plans(settings, inventory, book)
                                .nodes()
                                .get("c0")
                                .files()
                                .get("/etc/slurm/slurm.conf"))
                        .contains("n1"),
                "n1 stays in slurm.conf");
        reports.put(new NodeReport(
                "c0",
                2,
                List.of(),
                List.of(new SlurmNodeState(
                        "n1", "IDLE+DRAIN", "slurmlet: reclaiming for the " + "platform", List.of())),
                new Observed(null, null, null, List.of(), null, null, null, queued.subList(1, 2))));
        engine.tick();
        assertEquals(
                Phase.PLATFORM, book.get("n1").orElseThrow().phase(), "a job that names another node does not hold it");
        assertFalse(slurmConfNodes(plans(settings, inventory, book)
                        .nodes()
                        .get("c0")
                        .files()
                        .get("/etc/slurm/slurm.conf"))
                .contains("n1"));
        engine.close();
    }

    @Test
    void disablingSlurmletGivesEveryLentNodeBackThroughItsReclaimBeforeSlurmIsLeftAlone() throws Exception {
        SettingsStore settings = SettingsStore.open(state);
        Inventory inventory = machines("24.11.5", "c0", "n1");
        NodeReports reports = new NodeReports();
        lend(settings, List.of("n1"));
        LendingBook book = LendingBook.open(state);
        LendingEngine engine = engine(
                book,
                settings,
                inventory,
                reports,
                new Hooks(new FakeCommands(), Optional.empty(), Optional.empty(), Duration.ofSeconds(5)));
        engine.tick();
        settings.update(OptionalLong.empty(), s -> s.withEnabled(false));
        controllerShows(
                reports,
                new SlurmNodeState(
                        "n1", "MIXED+DRAIN", "slurmlet: reclaiming for the platform", List.of("7 of alice")));
        engine.tick();
        assertEquals(Phase.RECLAIMING, book.get("n1").orElseThrow().phase());
        assertEquals(
                "job 7 of alice still running, then it leaves Slurm",
                book.get("n1").orElseThrow().waitingFor());
        var winding = plans(settings, inventory, book);
        assertEquals(
                List.of("munge", "slurmctld"),
                winding.nodes().get("c0").slurm().services(),
                "Slurm runs on while the job does");
        controllerShows(
                reports, new SlurmNodeState("n1", "IDLE+DRAIN", "slurmlet: reclaiming for the platform", List.of()));
        engine.tick();
        assertEquals(Phase.PLATFORM, book.get("n1").orElseThrow().phase());
        var off = plans(settings, inventory, book);
        off.nodes().values().forEach(p -> assertEquals(Set.of(), p.roles(), p.node()));
        engine.close();
    }

    @Test
    void theHookAboutToRunIsOnDiskBeforeItRunsAndALeaderStoppedDuringItRunsItAgainOnceWithTheSameRunId()
            throws Exception {
        SettingsStore settings = SettingsStore.open(state);
        Inventory inventory = machines("22.05.8", "c0", "n1");
        NodeReports reports = new NodeReports();
        lend(settings, List.of("n1"));
        LendingBook book = LendingBook.open(state);
        java.util.List<String> seenOnDisk = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<List<String>> runs = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        // The first leader's release hook never ends: the leader "stops" during it.
        Commands hanging = (argv, deadline) -> {
            runs.add(argv);
            try {
                seenOnDisk.add(LendingBook.open(state).get("n1").orElseThrow().hookRunning());
                never.await();
            } catch (Exception e) {
                Thread.currentThread().interrupt();
            }
            return new Commands.Result(143, "", "killed"); // as LinuxCommands answers for a hook it had to end
        };
        LendingEngine first = engine(
                book,
                settings,
                inventory,
                reports,
                new Hooks(
                        hanging,
                        Optional.empty(),
                        Optional.of(List.of("platform-release", "{node}", "{run}")),
                        Duration.ofSeconds(5)));
        first.tick();
        lend(settings, List.of());
        controllerShows(
                reports, new SlurmNodeState("n1", "IDLE+DRAIN", "slurmlet: reclaiming for the platform", List.of()));
        first.tick();
        first.tick();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !seenOnDisk.isEmpty());
        assertEquals(List.of("release"), seenOnDisk, "the hook about to run was written down before it ran");
        // The leader stops (its hook thread goes with it); the next reads the book from disk.
        first.close();
        LendingBook again = LendingBook.open(state);
        assertEquals("release", again.get("n1").orElseThrow().hookRunning());
        FakeCommands commands = new FakeCommands()
                .answer(List.of("platform-release", "n1", runs.get(0).get(2)), Commands.Result.ok("released"));
        LendingEngine second = engine(
                again,
                settings,
                inventory,
                reports,
                new Hooks(
                        commands,
                        Optional.empty(),
                        Optional.of(List.of("platform-release", "{node}", "{run}")),
                        Duration.ofSeconds(5)));
        second.tick();
        assertEquals(Phase.PLATFORM, awaitPhase(again, Phase.PLATFORM));
        second.tick();
        assertEquals(
                List.of(List.of("platform-release", "n1", runs.get(0).get(2))),
                commands.log(),
                "run again once, with the same run id");
        LendingRecord r = again.get("n1").orElseThrow();
        assertEquals("", r.hookRunning());
        assertTrue(
                r.lastError().startsWith("the release hook was running when the leader stopped (started at "),
                r.lastError());
        assertTrue(runs.get(0).get(2).startsWith("n1-reclaiming-"), runs.toString());
        never.countDown();
        second.close();
    }

    @Test
    void aNodeIsReadyForJobsOnlyOnceItsAgentReportsTheWantedExportMounted() {
        SlurmSettings s = new SlurmSettings(
                true,
                "lab",
                "n0",
                List.of("n1", "n2"),
                false,
                List.of("n1"),
                "gpu",
                new io.slurmlet.model.settings.SharedStorage("/shared/", null, "n0"),
                "",
                false,
                null,
                Map.of());
        assertEquals(
                Optional.of("its agent has not mounted n0:/shared at /shared yet: Slurm runs no job there before"),
                LendingEngine.storageUnready(s, "n1", Optional.empty()),
                "no report yet");
        io.slurmlet.model.observed.StorageSeen.Unit other =
                new io.slurmlet.model.observed.StorageSeen.Unit("", true, true, "nas:/old", "/shared");
        io.slurmlet.model.observed.StorageSeen.Unit ours =
                new io.slurmlet.model.observed.StorageSeen.Unit("", true, true, "n0:/shared", "/shared");
        io.slurmlet.model.observed.StorageSeen.Unit stopped =
                new io.slurmlet.model.observed.StorageSeen.Unit("", true, false, "n0:/shared", "/shared");
        assertTrue(
                LendingEngine.storageUnready(s, "n1", Optional.of(seen(other))).isPresent(),
                "another export is no storage of this cluster");
        assertTrue(
                LendingEngine.storageUnready(s, "n1", Optional.of(seen(stopped)))
                        .isPresent(),
                "a unit that is not mounted");
        assertEquals(Optional.empty(), LendingEngine.storageUnready(s, "n1", Optional.of(seen(ours))));
        assertEquals(
                Optional.empty(),
                LendingEngine.storageUnready(s, "n0", Optional.empty()),
                "the server has its own disk");
        SlurmSettings site = new SlurmSettings(
                true,
                "lab",
                "n0",
                List.of("n1", "n2"),
                false,
                List.of("n1"),
                "gpu",
                new io.slurmlet.model.settings.SharedStorage("/lustre", null, null),
                "",
                false,
                null,
                Map.of());
        assertEquals(
                Optional.empty(),
                LendingEngine.storageUnready(site, "n1", Optional.empty()),
                "the site mounts it: its step checks");
    }

    static Observed seen(io.slurmlet.model.observed.StorageSeen.Unit unit) {
        return new Observed(
                null,
                new io.slurmlet.model.observed.StorageSeen(
                        Map.of("shared.mount", unit), "", "", "", false, false, 0, null, "", "", List.of()),
                null,
                List.of(),
                null,
                null,
                null,
                null);
    }

    /** The nodes a slurm.conf names, host lists expanded. */
    private static java.util.List<String> slurmConfNodes(String slurmConf) {
        return io.slurmlet.agent.slurm.ReconfigureTable.nodeNames(slurmConf);
    }

    /**
     * A look at every node writes the record of each node that changed, each a document of its own,
     * and none for a node never lent; a look that changes nothing writes nothing. An earlier
     * leader's one lending.json is moved into them at open.
     */
    @Test
    void aLookAtManyNodesWritesEachChangedNodesOwnRecordOnly() throws Exception {
        io.slurmlet.agent.store.FileStore store = io.slurmlet.agent.store.FileStore.open(state);
        SettingsStore settings = SettingsStore.open(store);
        List<String> names = java.util.stream.IntStream.rangeClosed(1, 200)
                .mapToObj("n%03d"::formatted)
                .toList();
        Inventory inventory = machines("24.11.5", names.toArray(String[]::new));
        nodes(settings, names, names.subList(0, 100));
        LendingBook book = LendingBook.open(store);
        java.util.List<String> written = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Runnable unwatch = store.watch(key -> {
            if (LendingBook.holds(key)) {
                written.add(key);
            }
        });
        try {
            LendingEngine engine = engine(
                    book,
                    settings,
                    inventory,
                    new NodeReports(),
                    new Hooks(new FakeCommands(), Optional.empty(), Optional.empty(), Duration.ofSeconds(5)));
            engine.tick();
            // The store tells its watchers on a thread of its own.
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .untilAsserted(() -> assertEquals(
                            names.subList(0, 100).stream()
                                    .map(n -> "lending/" + n)
                                    .toList(),
                            List.copyOf(written),
                            "the lent nodes' own records, once each; none for the nodes never lent"));
            LendingBook reopened = LendingBook.open(state);
            assertEquals(100, reopened.all().size());
            assertEquals(Phase.LENT, reopened.get("n001").orElseThrow().phase(), "no drain hook: lent at once");
            assertTrue(reopened.get("n200").isEmpty(), "a node never lent has no record");
            assertTrue(
                    java.nio.file.Files.size(state.resolve("lending/n001")) < 2000,
                    "a node's record is its own few bytes");
            engine.tick();
            Thread.sleep(300); // a fixed wait: no write may be heard in it
            assertEquals(100, written.size(), "a look that changes nothing writes nothing");
        } finally {
            unwatch.run();
        }
    }

    /** A leader upgraded from a slurmlet that kept every node's record in lending.json: each moves to its own document. */
    @Test
    void theOneFileOfEarlierLeadersIsMovedIntoADocumentANode() throws Exception {
        LendingRecord lent = LendingRecord.platform("n1", "2026-12-01T00:00:00Z")
                .moved(Phase.LENDING, "2026-12-01T00:00:01Z", "lent")
                .moved(Phase.LENT, "2026-12-01T00:00:02Z", "freed");
        LendingRecord back = LendingRecord.platform("n2", "2026-12-01T00:00:00Z")
                .moved(Phase.RECLAIMING, "2026-12-01T00:00:03Z", "unlent");
        java.nio.file.Files.writeString(
                state.resolve(LendingBook.FILE_NAME),
                io.slurmlet.model.api.SettingsJson.STRICT.writeValueAsString(Map.of(
                        "nodes",
                        Map.of("n1", lent, "n2", back),
                        "known_to_slurm",
                        List.of("n1", "n2"),
                        "memory_classes",
                        List.of(4096))));

        LendingBook book = LendingBook.open(state);
        assertEquals(lent, book.get("n1").orElseThrow());
        assertEquals(back, book.get("n2").orElseThrow());
        assertEquals(Set.of("n1", "n2"), book.knownToSlurm());
        assertEquals(Set.of(4096L), book.memoryClasses());
        String rest = java.nio.file.Files.readString(state.resolve(LendingBook.FILE_NAME));
        assertFalse(rest.contains("\"n1\" :") || rest.contains("RECLAIMING"), "the records left the one file: " + rest);
        LendingBook again = LendingBook.open(state);
        assertEquals(Map.of("n1", lent, "n2", back), again.all(), "read again from the documents");
        assertEquals(Set.of("n1", "n2"), again.underWay());
    }
}
