package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.plan.PlanBook;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's one controller loop: every change in the store is planned, by nobody's call but the loop's. */
class PlanPublisherTest {

    @TempDir
    Path state;

    Store store;
    SettingsStore settings;
    Inventory inventory;
    PlanBook book;

    void open() throws Exception {
        store = FileStore.open(state);
        settings = SettingsStore.open(store);
        inventory = Inventory.open(store);
        book = PlanBook.open(store);
    }

    PlanPublisher loop() throws Exception {
        return new PlanPublisher(
                store,
                settings,
                inventory,
                MungeKey.random(),
                book,
                LendingBook.open(store),
                AccountsStore.open(store));
    }

    static NodeFacts machine(String name) {
        return NodeFacts.builder(name)
                .address("10.0.0.1")
                .cpus(8)
                .sockets(1)
                .coresPerSocket(8)
                .threadsPerCore(1)
                .memoryMiB(32_000)
                .os("debian 12")
                .slurmVersion("22.05.8")
                .build();
    }

    @Test
    void aChangeOfTheSettingsOrOfAMachinesFactsIsPublishedWithoutAnyoneAskingForIt() throws Exception {
        open();
        try (PlanPublisher loop = loop()) {
            inventory.report(machine("n0"));
            await(book, "n0", p -> p.plan().roles().isEmpty());
            var stored = settings.update(
                    OptionalLong.empty(),
                    s -> new SlurmSettings(
                            true, "lab", "n0", List.of("n0"), false, List.of(), null, null, null, false, null));
            assertTrue(stored instanceof SettingsStore.Result.Accepted, stored.toString());
            await(book, "n0", p -> p.plan().runs(Role.CONTROLLER) && p.plan().runs(Role.COMPUTE));
        }
    }

    @Test
    void aReplanThatCannotBeKeptIsTriedAgainUntilItIs() throws Exception {
        open();
        // plans.json cannot be written while a folder is in its place: the revisions are never served unkept.
        Path blocker = state.resolve(PlanBook.FILE_NAME);
        Files.createDirectory(blocker);
        Files.writeString(blocker.resolve("keep"), "x");
        try (PlanPublisher loop = loop()) {
            inventory.report(machine("n1"));
            Thread.sleep(300); // a fixed wait: no plan may be served in it
            assertTrue(book.get("n1").isEmpty(), "a plan whose revision was not kept is not served");
            Files.delete(blocker.resolve("keep"));
            Files.delete(blocker);
            await(book, "n1", p -> p.revision() == 1);
        }
    }

    /**
     * A class partition, once planned, is in every later slurm.conf, across a leader's restart too:
     * Slurm fails every job that names a partition slurm.conf loses, and every job that names no
     * partition names every class.
     */
    @Test
    void aMemoryClassOncePlannedIsKeptBeforeItIsSentAndStaysWhenItsLastNodeLeaves() throws Exception {
        open();
        String small = "PartitionName=lab_m256 Nodes=small Hidden=YES";
        // Every write of the plans that names the class finds it already kept in lending.json.
        List<String> unkept = new java.util.concurrent.CopyOnWriteArrayList<>();
        Store files = store;
        store = new Store() {
            @Override
            public Optional<Versioned> get(String key) throws StorageException {
                return files.get(key);
            }

            @Override
            public OptionalLong put(String key, byte[] value, long expected) throws StorageException {
                if (key.equals(PlanBook.FILE_NAME)
                        && new String(value, java.nio.charset.StandardCharsets.UTF_8).contains("lab_m256")) {
                    String lending = files.get(LendingBook.FILE_NAME)
                            .map(v -> new String(v.value(), java.nio.charset.StandardCharsets.UTF_8))
                            .orElse("");
                    if (!lending.replaceAll("\\s", "").matches("(?s).*\"memory_classes\":\\[[0-9,]*\\b256\\b.*")) {
                        unkept.add(lending);
                    }
                }
                return files.put(key, value, expected);
            }

            @Override
            public java.util.Map<String, Versioned> list(String folder) throws StorageException {
                return files.list(folder);
            }

            @Override
            public boolean delete(String key, long expected) throws StorageException {
                return files.delete(key, expected);
            }

            @Override
            public Runnable watch(java.util.function.Consumer<String> listener) {
                return files.watch(listener);
            }

            @Override
            public String where(String key) {
                return files.where(key);
            }
        };
        settings = SettingsStore.open(store);
        inventory = Inventory.open(store);
        book = PlanBook.open(store);
        try (PlanPublisher loop = loop()) {
            inventory.report(machine("n0"));
            inventory.report(NodeFacts.builder("small")
                    .address("10.0.0.2")
                    .cpus(8)
                    .sockets(1)
                    .coresPerSocket(8)
                    .threadsPerCore(1)
                    .memoryMiB(4_000)
                    .os("debian 12")
                    .slurmVersion("22.05.8")
                    .build());
            settings.update(
                    OptionalLong.empty(),
                    s -> new SlurmSettings(
                            true,
                            "lab",
                            "n0",
                            List.of("n0", "small"),
                            false,
                            List.of(),
                            "lab",
                            null,
                            null,
                            false,
                            null));
            await(
                    book,
                    "n0",
                    p -> p.plan()
                            .files()
                            .getOrDefault("/etc/slurm/slurm.conf", "")
                            .contains(small));
            assertTrue(
                    LendingBook.open(store).memoryClasses().containsAll(java.util.Set.of(256L, 2048L)),
                    "kept in the store");
            assertEquals(List.of(), unkept, "plans naming the class were written before lending.json kept it");
        }
        open(); // the leader restarts
        try (PlanPublisher loop = loop()) {
            settings.update(OptionalLong.empty(), s -> s.withNodeList(List.of("n0")));
            await(
                    book,
                    "n0",
                    p -> p.plan()
                            .files()
                            .getOrDefault("/etc/slurm/slurm.conf", "")
                            .contains(
                                    "PartitionName=lab_m256 Hidden=YES PriorityTier=2 DefMemPerCPU=256 MaxTime=INFINITE State=UP"));
        }
    }

    /**
     * A machine whose facts go back and forth (issue 39) made the leader replan and resend every
     * machine's plan (its NodeName line is in each slurm.conf) at each report. Now 20 alternations
     * within 2 s, each planned before the next where it was taken, publish new plans at most
     * {@link FactsLimit#BURST} times, and the latest facts reach every plan once the interval has
     * passed. On the old code each alternation was a publish.
     */
    @Test
    void aMachineWhoseFactsGoBackAndForthIsReplannedAtMostAsOftenAsItsLimitTakesAndItsLastFactsWin() throws Exception {
        open();
        java.util.concurrent.atomic.AtomicInteger publishes = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger n1Writes = new java.util.concurrent.atomic.AtomicInteger();
        store.watch(key -> {
            if (key.equals(PlanBook.FILE_NAME)) {
                publishes.incrementAndGet(); // written by each publish that gives a machine a new revision
            } else if (key.equals(Inventory.FOLDER + "/n1")) {
                n1Writes.incrementAndGet();
            }
        });
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        FactsLimit limit = new FactsLimit(java.time.Duration.ofSeconds(10), now::get);
        NodeFacts sixteen = NodeFacts.builder("n1")
                .address("10.0.0.2")
                .cpus(16)
                .sockets(1)
                .coresPerSocket(16)
                .threadsPerCore(1)
                .memoryMiB(32_000)
                .os("debian 12")
                .slurmVersion("22.05.8")
                .build();
        NodeFacts thirtyTwo = NodeFacts.builder("n1")
                .address("10.0.0.2")
                .cpus(32)
                .sockets(1)
                .coresPerSocket(32)
                .threadsPerCore(1)
                .memoryMiB(32_000)
                .os("debian 12")
                .slurmVersion("22.05.8")
                .build();
        try (PlanPublisher loop = loop()) {
            inventory.report(machine("n0"));
            settings.update(
                    OptionalLong.empty(),
                    s -> new SlurmSettings(
                            true, "lab", "n0", List.of("n0", "n1"), false, List.of(), null, null, null, false, null));
            assertEquals(Inventory.Stored.CHANGED, inventory.report(sixteen, () -> true, limit));
            await(book, "n0", p -> nodeLine(p, "n1").contains("CPUs=16 "));
            // A fixed wait: nothing marks the moment the watcher has heard every publish so far; counted before it,
            // a late one would pass for a publish of the changes below.
            Thread.sleep(300);
            int before = publishes.get();
            int taken = 0;
            for (int i = 0; i < 20; i++) {
                now.addAndGet(100_000_000L);
                NodeFacts next = i % 2 == 0 ? thirtyTwo : sixteen;
                if (inventory.report(next, () -> true, limit) == Inventory.Stored.CHANGED) {
                    taken++;
                    String cpus = "CPUs=" + next.cpus() + " ";
                    await(book, "n0", p -> nodeLine(p, "n1").contains(cpus)); // planned and published before the next
                }
            }
            assertEquals(FactsLimit.BURST, taken);
            Thread.sleep(300); // a fixed wait: no publish of a refused change may be heard in it
            assertTrue(
                    publishes.get() - before <= FactsLimit.BURST,
                    (publishes.get() - before) + " publishes for " + taken + " changes");
            assertEquals(
                    1 + FactsLimit.BURST, n1Writes.get(), "n1's facts written: its first report and the changes taken");

            now.addAndGet(
                    10_000_000_000L); // the interval passed: the machine reports its facts as they are now (16 CPUs)
            assertEquals(Inventory.Stored.CHANGED, inventory.report(sixteen, () -> true, limit));
            await(book, "n0", p -> nodeLine(p, "n1").contains("CPUs=16 "));
            await(book, "n1", p -> nodeLine(p, "n1").contains("CPUs=16 "));
        }
    }

    private static String slurmConf(PublishedPlan p) {
        return p.plan().files().getOrDefault("/etc/slurm/slurm.conf", "");
    }

    private static String nodeLine(PublishedPlan p, String node) {
        return slurmConf(p)
                .lines()
                .filter(l -> l.startsWith("NodeName=" + node + " "))
                .findFirst()
                .orElse("");
    }

    private static void await(PlanBook book, String node, Predicate<PublishedPlan> wanted) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> {
                    Optional<PublishedPlan> now = book.get(node);
                    assertTrue(now.isPresent() && wanted.test(now.get()), node + "'s plan: " + now);
                });
    }
}
