package io.slurmlet.agent.leader;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.store.FileStore;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InventoryTest {

    @TempDir
    Path state;

    private static NodeFacts machine(String name, int cpus) {
        return NodeFacts.builder(name)
                .cpus(cpus)
                .sockets(1)
                .coresPerSocket(cpus)
                .threadsPerCore(1)
                .memoryMiB(64_000)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
    }

    @Test
    void aReportWritesThatMachinesFileAloneAndOnlyWhenItsFactsChanged() throws Exception {
        Inventory inventory = Inventory.open(state);
        for (int i = 1; i <= 100; i++) {
            assertTrue(inventory.report(machine("n" + i, 8)));
        }
        Path n1 = state.resolve("inventory/n1");
        Path n2 = state.resolve("inventory/n2");
        byte[] n2Before = Files.readAllBytes(n2);
        var n2Time = Files.getLastModifiedTime(n2);
        assertFalse(inventory.report(machine("n1", 8)), "the same facts again: nothing written");
        assertTrue(inventory.report(machine("n1", 16)));
        assertEquals(
                16,
                SettingsJson.STRICT
                        .readValue(Files.readAllBytes(n1), NodeFacts.class)
                        .cpus());
        assertEquals(
                List.of(),
                List.of(Files.readAllBytes(n2)).stream()
                        .filter(b -> !java.util.Arrays.equals(b, n2Before))
                        .toList());
        assertEquals(n2Time, Files.getLastModifiedTime(n2), "another machine's file untouched");
        assertFalse(Files.exists(state.resolve(Inventory.FILE_NAME)), "no document of every machine");

        Map<String, NodeFacts> all = inventory.all();
        assertSame(all, inventory.all(), "no copy per look while nothing changed");
        assertEquals(100, all.size());
        Inventory reopened = Inventory.open(state);
        assertEquals(all, reopened.all(), "a restarted leader has every machine's facts");
        assertTrue(reopened.forget("n7"));
        assertFalse(Files.exists(state.resolve("inventory/n7")));
        assertFalse(reopened.forget("n7"));
        assertEquals(99, Inventory.open(state).all().size());
    }

    /**
     * A removal revokes the machine's credential and then forgets its facts under the machine's lock: a
     * report asked after the revocation is refused, and one asked before it is written before the facts
     * are forgotten (the forget waits for it). Either way the removed machine is not in the inventory.
     */
    @Test
    void aReportOfAMachineRemovedMeanwhileIsRefusedAndAForgetWaitsForAReportBeingChecked() throws Exception {
        Inventory inventory = Inventory.open(state);
        java.util.concurrent.atomic.AtomicBoolean joined = new java.util.concurrent.atomic.AtomicBoolean(true);
        assertEquals(Inventory.Stored.CHANGED, inventory.report(machine("n1", 8), joined::get));
        assertEquals(Inventory.Stored.UNCHANGED, inventory.report(machine("n1", 8), joined::get));
        joined.set(false); // the removal revoked the credential
        assertTrue(inventory.forget("n1"));
        assertEquals(Inventory.Stored.REFUSED, inventory.report(machine("n1", 16), joined::get));
        assertFalse(inventory.has("n1"));
        assertFalse(Files.exists(state.resolve("inventory/n1")), "nothing written for a machine removed");
        assertFalse(inventory.all().containsKey("n1"));

        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
            var report = pool.submit(() -> inventory.report(machine("n2", 8), () -> {
                asked.countDown();
                try {
                    Thread.sleep(300); // a forget that did not wait for this report would be over by now
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return true;
            }));
            assertTrue(asked.await(10, java.util.concurrent.TimeUnit.SECONDS));
            var forget = pool.submit(() -> inventory.forget("n2"));
            assertEquals(Inventory.Stored.CHANGED, report.get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(
                    forget.get(10, java.util.concurrent.TimeUnit.SECONDS),
                    "the forget found the report's facts: it waited for it");
        } finally {
            pool.shutdownNow();
        }
        assertFalse(inventory.has("n2"));
        assertEquals(Map.of(), Inventory.open(state).all(), "and after a restart");
    }

    /**
     * A machine whose facts go back and forth (issue 39) has a change taken at most as often as its
     * limit says: of 20 alternations within 2 s, the first {@link FactsLimit#BURST} are written (so
     * heard by the planner), the rest refused with nothing written; a report of the facts held is
     * never refused, nor another machine's change. Once the wait the limit gives has passed, the
     * machine's latest facts are taken, and then one change an interval.
     */
    @Test
    void aMachineWhoseFactsGoBackAndForthHasAChangeTakenAtMostAsOftenAsItsLimitSays() throws Exception {
        FileStore store = FileStore.open(state);
        Inventory inventory = Inventory.open(store);
        java.util.List<String> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        store.watch(written::add); // what nudges the planner: each is a replan of every machine
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        FactsLimit limit = new FactsLimit(java.time.Duration.ofSeconds(10), now::get);
        NodeFacts eight = machine("n1", 8);
        NodeFacts sixteen = machine("n1", 16);
        assertEquals(
                Inventory.Stored.CHANGED, inventory.report(eight, () -> true, limit), "its first report: not a change");
        assertEquals(Inventory.Stored.CHANGED, inventory.report(machine("n2", 8), () -> true, limit));

        List<Inventory.Stored> answers = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            now.addAndGet(100_000_000L);
            answers.add(inventory.report(i % 2 == 0 ? sixteen : eight, () -> true, limit));
        }
        assertEquals(
                FactsLimit.BURST,
                answers.stream().filter(Inventory.Stored.CHANGED::equals).count(),
                answers.toString());
        assertEquals(
                List.of(
                        Inventory.Stored.CHANGED,
                        Inventory.Stored.CHANGED,
                        Inventory.Stored.CHANGED,
                        Inventory.Stored.LIMITED,
                        Inventory.Stored.UNCHANGED),
                answers.subList(0, 5),
                "then the held facts (16 CPUs) are taken, the others refused");
        assertEquals(
                9, answers.stream().filter(Inventory.Stored.LIMITED::equals).count(), answers.toString());
        assertEquals(sixteen, inventory.all().get("n1"), "the last change taken");
        assertEquals(
                Inventory.Stored.UNCHANGED,
                inventory.report(sixteen, () -> true, limit),
                "the facts held: never refused");
        assertEquals(
                Inventory.Stored.CHANGED,
                inventory.report(machine("n2", 16), () -> true, limit),
                "another machine's change");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> written.size() >= 2 + FactsLimit.BURST + 1);
        Thread.sleep(200); // a fixed wait: no write of a refused change may follow in it
        assertEquals(
                1 + FactsLimit.BURST,
                written.stream().filter("inventory/n1"::equals).count(),
                "n1's writes, each a replan: " + written);
        java.time.Duration wait = limit.wait("n1");
        assertTrue(
                wait.compareTo(java.time.Duration.ZERO) > 0 && wait.compareTo(java.time.Duration.ofSeconds(10)) <= 0,
                wait.toString());

        now.addAndGet(wait.toNanos());
        assertEquals(
                Inventory.Stored.CHANGED,
                inventory.report(eight, () -> true, limit),
                "once the wait passed: the latest facts");
        assertEquals(eight, inventory.all().get("n1"));
        assertEquals(eight, Inventory.open(state).all().get("n1"), "durable");
        assertEquals(
                Inventory.Stored.LIMITED, inventory.report(sixteen, () -> true, limit), "and then one an interval");
        now.addAndGet(10_000_000_000L);
        assertEquals(Inventory.Stored.CHANGED, inventory.report(sixteen, () -> true, limit));
    }

    /** The first report of a machine whose facts are not held (new, or removed and allowed again) is never refused nor counted. */
    @Test
    void theFirstReportOfAMachineWhoseFactsAreNotHeldIsNeverRefusedNorCounted() throws Exception {
        Inventory inventory = Inventory.open(state);
        FactsLimit limit = new FactsLimit(java.time.Duration.ofSeconds(10), () -> 0L);
        for (int cpus = 1; cpus <= 1 + FactsLimit.BURST; cpus++) {
            assertEquals(Inventory.Stored.CHANGED, inventory.report(machine("n1", cpus), () -> true, limit));
        }
        assertEquals(Inventory.Stored.LIMITED, inventory.report(machine("n1", 8), () -> true, limit));
        assertTrue(inventory.forget("n1")); // removed
        assertEquals(
                Inventory.Stored.CHANGED,
                inventory.report(machine("n1", 8), () -> true, limit),
                "joined again: its first report");
        assertEquals(Inventory.Stored.LIMITED, inventory.report(machine("n1", 16), () -> true, limit));
    }

    @Test
    void aWatcherThatHearsOfAMachinesFileSeesItsFactsInTheInventory() throws Exception {
        // The planner hears of a change on the store's thread as soon as the file is durable, and then
        // plans from the inventory: it must find the facts there (CI once saw a plan made without them).
        FileStore store = FileStore.open(state);
        Inventory inventory = Inventory.open(store);
        java.util.List<String> missing = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger heard = new java.util.concurrent.atomic.AtomicInteger();
        store.watch(key -> {
            String node = key.substring(Inventory.FOLDER.length() + 1);
            if (!inventory.all().containsKey(node)) {
                missing.add(node);
            }
            heard.incrementAndGet();
        });
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        java.util.List<java.util.concurrent.Future<Boolean>> done = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String name = "n" + i;
            done.add(pool.submit(() -> inventory.report(machine(name, 8))));
        }
        for (var f : done) {
            assertTrue(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
        }
        pool.shutdown();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> heard.get() >= 200);
        assertEquals(200, heard.get());
        assertEquals(List.of(), missing, "machines the watcher heard of and did not find");
    }

    @Test
    void theOneDocumentOfAnOlderSlurmletIsMovedIntoOneFileAMachine() throws Exception {
        Map<String, NodeFacts> old = new TreeMap<>();
        for (String n : List.of("gpu001", "gpu002", "cpu1")) {
            old.put(n, machine(n, 32));
        }
        Files.write(state.resolve(Inventory.FILE_NAME), SettingsJson.pretty(old));
        Inventory inventory = Inventory.open(state);
        assertEquals(old, inventory.all());
        assertFalse(Files.exists(state.resolve(Inventory.FILE_NAME)));
        assertEquals(
                List.of("cpu1", "gpu001", "gpu002"),
                Files.list(state.resolve("inventory"))
                        .map(p -> p.getFileName().toString())
                        .sorted()
                        .toList());
        assertEquals(old, Inventory.open(state).all());
    }

    @Test
    void aMoveInterruptedAfterSomeMachinesIsDoneAgainAtTheNextStart() throws Exception {
        Map<String, NodeFacts> old = new TreeMap<>(Map.of("n1", machine("n1", 8), "n2", machine("n2", 8)));
        Files.write(state.resolve(Inventory.FILE_NAME), SettingsJson.pretty(old));
        // As a crash after n1 was written and before the old document was removed leaves it.
        FileStore.open(state)
                .put("inventory/n1", SettingsJson.pretty(machine("n1", 8)), 0)
                .orElseThrow();
        assertEquals(old, Inventory.open(state).all());
        assertFalse(Files.exists(state.resolve(Inventory.FILE_NAME)));
    }

    @Test
    void factsInAFileThatNameAnotherMachineOrThatItsChecksRefuseAreLeftOutUntilItReports() throws Exception {
        Inventory inventory = Inventory.open(state);
        inventory.report(machine("n1", 8));
        inventory.report(machine("n2", 8));
        Files.write(state.resolve("inventory/n2"), SettingsJson.pretty(machine("n1", 8)));
        Files.write(state.resolve("inventory/n3"), SettingsJson.pretty(machine("n3", 0)));
        Inventory reopened = Inventory.open(state);
        assertEquals(List.of("n1"), List.copyOf(new TreeMap<>(reopened.all()).keySet()));
        assertTrue(reopened.report(machine("n2", 8)), "its next report is taken");
        assertTrue(reopened.report(machine("n3", 8)));
        assertEquals(3, Inventory.open(state).all().size());
    }
}
