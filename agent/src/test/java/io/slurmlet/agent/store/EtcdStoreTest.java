package io.slurmlet.agent.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's contract on a real etcd (Debian's etcd-server on loopback, TLS with client
 * certificates checked), each test under a prefix of its own; and what only etcd has: its key
 * prefix, listings in pages, a watch that lost its place, an etcd that is gone.
 */
class EtcdStoreTest extends StoreContract {

    @TempDir
    static Path dir;

    static EtcdProcess etcd;
    private static int tests;
    private final List<EtcdStore> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdProcess.start(dir, true);
    }

    @AfterAll
    static void stop() throws Exception {
        etcd.close();
    }

    @AfterEach
    void closeStores() {
        opened.forEach(EtcdStore::close);
    }

    @Override
    Store store() throws Exception {
        return open("/slurmlet-test-" + (++tests) + "/");
    }

    private EtcdStore open(String prefix) throws StorageException {
        EtcdStore store = etcd.store(prefix);
        opened.add(store);
        return store;
    }

    @Test
    void everyKeyIsUnderTheStoresPrefixAndAnotherPrefixIsAnotherClustersState() throws Exception {
        EtcdStore a = open("/site-a/slurmlet/");
        EtcdStore b = open("/site-b/slurmlet/");
        List<String> heardByB = new CopyOnWriteArrayList<>();
        b.watch(heardByB::add);
        a.put("settings.json", text("{\"a\":1}"), Store.ABSENT).orElseThrow();
        a.put("inventory/n1", text("n1"), Store.ABSENT).orElseThrow();
        assertEquals(
                "{\"a\":1}",
                etcd.etcdctl("get", "--print-value-only", "/site-a/slurmlet/settings.json")
                        .strip());
        assertTrue(b.get("settings.json").isEmpty());
        assertEquals(java.util.Map.of(), b.list("inventory"));
        b.put("settings.json", text("{\"b\":1}"), Store.ABSENT).orElseThrow();
        awaitSize(heardByB, 1);
        assertEquals(List.of("settings.json"), heardByB, "b hears its own key, none of a's");
        assertTrue(a.where("settings.json").contains("/site-a/slurmlet/settings.json")
                && a.where("settings.json").contains(etcd.endpoint));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> open("slurmlet"));
        assertTrue(bad.getMessage().contains("starts and ends with /"), bad.getMessage());
    }

    /**
     * A leader-eligible agent that starts while etcd does not answer opens its store all the same (and
     * stands by, its election asking again) rather than exit until etcd is back; once etcd answers,
     * the store reads, writes and hears its changes. One opened to move a file store into etcd still
     * refuses at once.
     */
    @Test
    void aStoreOpenedWhileEtcdDoesNotAnswerWorksOnceItDoes() throws Exception {
        EtcdStore late;
        etcd.pause();
        try {
            assertThrows(
                    StorageException.class,
                    () -> EtcdStore.connect(
                            List.of(etcd.endpoint),
                            Optional.of(etcd.dir.resolve("ca.crt")),
                            Optional.of(etcd.dir.resolve("client.crt")),
                            Optional.of(etcd.dir.resolve("client.key")),
                            "/late/",
                            Duration.ofSeconds(1)));
            late = EtcdStore.connect(
                    List.of(etcd.endpoint),
                    Optional.of(etcd.dir.resolve("ca.crt")),
                    Optional.of(etcd.dir.resolve("client.crt")),
                    Optional.of(etcd.dir.resolve("client.key")),
                    "/late/",
                    Duration.ofSeconds(1),
                    false);
            opened.add(late);
            assertThrows(StorageException.class, () -> late.get("settings.json"), "nothing answers yet");
        } finally {
            etcd.resume();
        }
        List<String> heard = new CopyOnWriteArrayList<>();
        late.watch(heard::add);
        assertTrue(late.put("settings.json", text("{\"late\":1}"), Store.ABSENT).isPresent());
        awaitSize(heard, 1);
        assertEquals(List.of("settings.json"), heard);
        assertArrayEquals(
                text("{\"late\":1}"), late.get("settings.json").orElseThrow().value());
    }

    @Test
    void aCollectionOfMoreMembersThanAPageIsListedWholeAtOneRevision() throws Exception {
        EtcdStore store = open("/slurmlet-pages/");
        int machines = EtcdDocuments.PAGE * 2 + 7;
        for (int i = 0; i < machines; i++) {
            store.put("inventory/gpu%04d".formatted(i), text("facts of " + i), Store.ABSENT)
                    .orElseThrow();
        }
        store.put("inventoryx/other", text("x"), Store.ABSENT).orElseThrow();
        var listed = store.list("inventory");
        assertEquals(machines, listed.size());
        assertEquals("inventory/gpu0000", listed.keySet().iterator().next());
        assertArrayEquals(
                text("facts of " + (machines - 1)),
                listed.get("inventory/gpu%04d".formatted(machines - 1)).value());
    }

    @Test
    void aKeyWrittenAroundSlurmletIsHeardAndOneThatIsNoKeyOfItsIsIgnored() throws Exception {
        EtcdStore store = open("/slurmlet-around/");
        List<String> heard = new CopyOnWriteArrayList<>();
        store.watch(heard::add);
        etcd.etcdctl("put", "/slurmlet-around/../../etc/passwd", "x");
        etcd.etcdctl("put", "/slurmlet-around/inventory/n1", "{}");
        awaitSize(heard, 1);
        Thread.sleep(200); // a fixed wait: no other key may be heard in it
        assertEquals(List.of("inventory/n1"), heard, "no key outside the state's names reaches a watcher");
        assertEquals(
                List.of("inventory/n1"), List.copyOf(store.list("inventory").keySet()));
    }

    @Test
    void aWatchWhoseRevisionWasCompactedAwayStartsAgainAndTellsEveryKey() throws Exception {
        EtcdStore writer = open("/slurmlet-compacted/");
        writer.put("settings.json", text("1"), Store.ABSENT).orElseThrow();
        writer.put("inventory/n1", text("n1"), Store.ABSENT).orElseThrow();
        EtcdStore reader = open("/slurmlet-compacted/");
        long v = writer.get("settings.json").orElseThrow().version();
        writer.put("settings.json", text("2"), v).orElseThrow();
        writer.put(
                        "settings.json",
                        text("3"),
                        writer.get("settings.json").orElseThrow().version())
                .orElseThrow();
        // The reader opened before those writes, so its watch starts before them: compacted away, they cannot be
        // replayed.
        String revision = etcd.etcdctl("get", "/slurmlet-compacted/settings.json", "-w", "json")
                .replaceAll(".*\"revision\":(\\d+).*", "$1")
                .strip();
        etcd.etcdctl("compaction", revision);
        List<String> heard = new CopyOnWriteArrayList<>();
        reader.watch(heard::add);
        awaitSize(heard, 2);
        assertTrue(heard.containsAll(List.of("settings.json", "inventory/n1")), "every key told again: " + heard);
        writer.put("plans.json", text("p"), Store.ABSENT).orElseThrow();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> assertTrue(heard.contains("plans.json"), "and watching goes on: " + heard));
    }

    @Test
    void anEtcdThatCannotBeReachedIsAStorageErrorNamingItAndNothingIsAcknowledged(@TempDir Path own) throws Exception {
        EtcdProcess gone = EtcdProcess.start(own, false);
        EtcdStore store = EtcdStore.connect(
                List.of(gone.endpoint),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "/slurmlet/",
                Duration.ofSeconds(2));
        opened.add(store);
        store.put("settings.json", text("1"), Store.ABSENT).orElseThrow();
        assertEquals(Optional.empty(), store.unreachable());
        gone.kill();
        assertTrue(
                store.unreachable().orElseThrow().contains(gone.endpoint), "readiness is told: " + store.unreachable());
        StorageException e = assertThrows(
                StorageException.class,
                () -> store.put(
                        "settings.json",
                        text("2"),
                        store.get("settings.json").orElseThrow().version()));
        assertTrue(e.getMessage().contains(gone.endpoint), e.getMessage());
        StorageException atOpen = assertThrows(
                StorageException.class,
                () -> EtcdStore.connect(
                        List.of(gone.endpoint),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        "/slurmlet/",
                        Duration.ofSeconds(2)));
        assertTrue(
                atOpen.getMessage().contains("cannot reach etcd")
                        && atOpen.getMessage().contains(gone.endpoint),
                atOpen.getMessage());
    }

    @Test
    void withoutAClientCertificateEtcdRefusesTheStore() {
        StorageException e = assertThrows(
                StorageException.class,
                () -> EtcdStore.connect(
                        List.of(etcd.endpoint),
                        Optional.of(dir.resolve("ca.crt")),
                        Optional.empty(),
                        Optional.empty(),
                        "/slurmlet/",
                        Duration.ofSeconds(3)));
        assertTrue(e.getMessage().contains("cannot reach etcd"), e.getMessage());
    }
}
