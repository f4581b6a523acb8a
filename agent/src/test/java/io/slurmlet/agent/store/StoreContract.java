package io.slurmlet.agent.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What every store of the leader's state does, whatever keeps it: the file store and etcd run these same tests. */
abstract class StoreContract {

    /** A store of its own for each test, holding nothing. */
    abstract Store store() throws Exception;

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aWriteNamingTheVersionItReadWinsAndOneNamingAnOlderVersionWritesNothing() throws Exception {
        Store store = store();
        long first = store.put("settings.json", text("a"), Store.ABSENT).orElseThrow();
        assertTrue(store.put("settings.json", text("b"), Store.ABSENT).isEmpty(), "a key that exists is not absent");
        long second = store.put("settings.json", text("c"), first).orElseThrow();
        assertTrue(second > first);
        assertTrue(
                store.put("settings.json", text("d"), first).isEmpty(), "the version was read before the last write");
        assertArrayEquals(text("c"), store.get("settings.json").orElseThrow().value());
        assertEquals(second, store.get("settings.json").orElseThrow().version());
    }

    @Test
    void aDeleteNamingAnOlderVersionKeepsTheDocument() throws Exception {
        Store store = store();
        long v = store.put("inventory.json", text("1"), Store.ABSENT).orElseThrow();
        store.put("inventory.json", text("2"), v).orElseThrow();
        assertFalse(store.delete("inventory.json", v));
        assertArrayEquals(text("2"), store.get("inventory.json").orElseThrow().value());
        assertTrue(store.delete(
                "inventory.json", store.get("inventory.json").orElseThrow().version()));
        assertTrue(store.get("inventory.json").isEmpty());
        assertTrue(store.delete("inventory.json", v), "a key already absent");
        assertTrue(store.put("inventory.json", text("3"), Store.ABSENT).isPresent(), "written again from nothing");
    }

    @Test
    void watchersHearEveryChangeInOrderAndNoneAfterTheirWatchEnds() throws Exception {
        Store store = store();
        List<String> heard = new CopyOnWriteArrayList<>();
        Runnable end = store.watch(heard::add);
        long v = store.put("settings.json", text("a"), Store.ABSENT).orElseThrow();
        store.put("accounts.json", text("b"), Store.ABSENT).orElseThrow();
        store.put("settings.json", text("c"), v).orElseThrow();
        store.put("settings.json", text("x"), v);
        long w = store.get("accounts.json").orElseThrow().version();
        store.delete("accounts.json", w);
        awaitSize(heard, 4);
        assertEquals(List.of("settings.json", "accounts.json", "settings.json", "accounts.json"), heard);
        end.run();
        store.put("plans.json", text("p"), Store.ABSENT).orElseThrow();
        List<String> after = new CopyOnWriteArrayList<>();
        store.watch(after::add);
        store.put("tokens.json", text("t"), Store.ABSENT).orElseThrow();
        awaitSize(after, 1);
        assertEquals(List.of("tokens.json"), after, "a watch hears what comes after it began");
        assertEquals(4, heard.size(), "a watch that ended hears nothing more: " + heard);
    }

    @Test
    void aKeyNamesADocumentOrACollectionsMemberNeverAnythingOutsideTheState() throws Exception {
        Store store = store();
        for (String key : List.of(
                "../etc/passwd",
                "/etc/passwd",
                "a/b/c.json",
                "",
                ".hidden",
                "Settings.json",
                "a\nb",
                "inventory/../settings.json",
                "inventory/..",
                "inventory/.x",
                "inventory/",
                "Inventory/n1",
                "inventory/n1\nx",
                "inventory/-n1",
                "inventory/n1.tmp-0123456789ab")) {
            assertThrows(IllegalArgumentException.class, () -> store.put(key, text("x"), Store.ABSENT), key);
            assertThrows(IllegalArgumentException.class, () -> store.get(key), key);
        }
        assertThrows(IllegalArgumentException.class, () -> store.list("../etc"));
        assertThrows(IllegalArgumentException.class, () -> store.list("inventory/n1"));
    }

    @Test
    void aLargeDocumentIsWrittenAndReadWhole() throws Exception {
        Store store = store();
        byte[] big = new byte[3 * 64 * 1024 + 17];
        new java.util.Random(3).nextBytes(big);
        store.put("plans.json", big, Store.ABSENT).orElseThrow();
        assertArrayEquals(big, store.get("plans.json").orElseThrow().value());
    }

    @Test
    void aCollectionListsItsMembersWithTheirVersionsAndNothingElse() throws Exception {
        Store store = store();
        assertEquals(java.util.Map.of(), store.list("inventory"), "nothing yet");
        long a = store.put("inventory/gpu001", text("a"), Store.ABSENT).orElseThrow();
        long b = store.put("inventory/GPU.2_x-y", text("b"), Store.ABSENT).orElseThrow();
        store.put("inventory.json", text("not a member"), Store.ABSENT).orElseThrow();
        store.put("inventoryx/gpu009", text("another collection"), Store.ABSENT).orElseThrow();
        var listed = store.list("inventory");
        assertEquals(List.of("inventory/GPU.2_x-y", "inventory/gpu001"), List.copyOf(listed.keySet()));
        assertEquals(a, listed.get("inventory/gpu001").version());
        assertEquals(b, listed.get("inventory/GPU.2_x-y").version());
        assertArrayEquals(text("a"), listed.get("inventory/gpu001").value());
        assertTrue(store.delete("inventory/gpu001", a));
        assertEquals(
                List.of("inventory/GPU.2_x-y"),
                List.copyOf(store.list("inventory").keySet()));
    }

    @Test
    void writersOfDifferentKeysGoOnTogetherAndWatchersHearEveryChangeInVersionOrder() throws Exception {
        Store store = store();
        List<String> heard = new CopyOnWriteArrayList<>();
        store.watch(heard::add);
        int threads = 8;
        int each = 50;
        java.util.Map<String, Long> versions = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                for (int i = 0; i < each; i++) {
                    String key = "inventory/n" + thread + "-" + i;
                    versions.put(key, store.put(key, text(key), Store.ABSENT).orElseThrow());
                }
                return null;
            }));
        }
        for (var f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        awaitSize(heard, threads * each);
        assertEquals(threads * each, new java.util.HashSet<>(versions.values()).size(), "every write its own version");
        List<Long> inOrderHeard = heard.stream().map(versions::get).toList();
        assertEquals(inOrderHeard.stream().sorted().toList(), inOrderHeard, "heard in the order of their versions");
        assertEquals(threads * each, store.list("inventory").size());
    }

    @Test
    void aDocumentWrittenByAnotherWriterSinceItWasReadIsNotOverwritten() throws Exception {
        Store store = store();
        Document<List<String>> mine =
                Document.in(store, "accounts.json", new com.fasterxml.jackson.core.type.TypeReference<>() {});
        assertEquals(List.of(), mine.read(List::of, "the accounts", "restore them"));
        mine.write(List.of("a"));
        long theirs = store.get("accounts.json").orElseThrow().version();
        store.put("accounts.json", text("[\"b\"]"), theirs).orElseThrow();
        StorageException refused = assertThrows(StorageException.class, () -> mine.write(List.of("c")));
        assertTrue(refused.getMessage().contains("changed by another writer"), refused.getMessage());
        assertArrayEquals(
                text("[\"b\"]"), store.get("accounts.json").orElseThrow().value());
        assertEquals(List.of("b"), mine.read(List::of, "the accounts", "restore them"));
        mine.write(List.of("c"));
    }

    /** Returns once {@code list} holds {@code size} keys: a store tells its watchers on a thread of its own. */
    static void awaitSize(List<String> list, int size) {
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .untilAsserted(
                        () -> assertTrue(list.size() >= size, "heard " + list.size() + " of " + size + ": " + list));
    }
}
