package io.slurmlet.agent.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileStoreTest {

    @TempDir
    Path state;

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aWriteNamingTheVersionItReadWinsAndOneNamingAnOlderVersionWritesNothing() throws Exception {
        FileStore store = FileStore.open(state);
        long first = store.put("settings.json", text("a"), Store.ABSENT).orElseThrow();
        assertTrue(store.put("settings.json", text("b"), Store.ABSENT).isEmpty(), "a key that exists is not absent");
        long second = store.put("settings.json", text("c"), first).orElseThrow();
        assertTrue(second > first);
        assertTrue(store.put("settings.json", text("d"), first).isEmpty(), "the version was read before the last write");
        assertArrayEquals(text("c"), store.get("settings.json").orElseThrow().value());
        assertEquals(second, store.get("settings.json").orElseThrow().version());
        assertEquals("c", Files.readString(state.resolve("settings.json")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("settings.json"))));
    }

    @Test
    void aKeyFoundOnDiskAtOpenHasAVersionAndIsWrittenOnlyFromIt() throws Exception {
        Files.writeString(state.resolve("lending.json"), "{}");
        Files.writeString(state.resolve("lending.json" + ".tmp-0123456789ab"), "half");
        FileStore store = FileStore.open(state);
        assertFalse(Files.exists(state.resolve("lending.json.tmp-0123456789ab")), "an interrupted write's leftover is removed");
        assertTrue(store.put("lending.json", text("{\"x\":1}"), Store.ABSENT).isEmpty());
        long version = store.get("lending.json").orElseThrow().version();
        assertTrue(store.put("lending.json", text("{\"x\":1}"), version).isPresent());
    }

    @Test
    void aDeleteNamingAnOlderVersionKeepsTheDocument() throws Exception {
        FileStore store = FileStore.open(state);
        long v = store.put("inventory.json", text("1"), Store.ABSENT).orElseThrow();
        store.put("inventory.json", text("2"), v).orElseThrow();
        assertFalse(store.delete("inventory.json", v));
        assertTrue(Files.exists(state.resolve("inventory.json")));
        assertTrue(store.delete("inventory.json", store.get("inventory.json").orElseThrow().version()));
        assertTrue(store.get("inventory.json").isEmpty());
        assertFalse(Files.exists(state.resolve("inventory.json")));
    }

    @Test
    void watchersHearEveryChangeInOrderAndNoneAfterTheirWatchEnds() throws Exception {
        FileStore store = FileStore.open(state);
        List<String> heard = new CopyOnWriteArrayList<>();
        Runnable end = store.watch(heard::add);
        long v = store.put("settings.json", text("a"), Store.ABSENT).orElseThrow();
        store.put("accounts.json", text("b"), Store.ABSENT).orElseThrow();
        store.put("settings.json", text("c"), v).orElseThrow();
        store.put("settings.json", text("x"), v);
        awaitSize(heard, 3);
        assertEquals(List.of("settings.json", "accounts.json", "settings.json"), heard);
        end.run();
        store.put("plans.json", text("p"), Store.ABSENT).orElseThrow();
        List<String> after = new CopyOnWriteArrayList<>();
        store.watch(after::add);
        store.put("tokens.json", text("t"), Store.ABSENT).orElseThrow();
        awaitSize(after, 1);
        assertEquals(3, heard.size(), "a watch that ended hears nothing more: " + heard);
    }

    @Test
    void aKeyIsAFileNameOfTheStateDirectoryNeverAPathOutOfIt() throws Exception {
        FileStore store = FileStore.open(state);
        for (String key : List.of("../etc/passwd", "/etc/passwd", "a/b/c.json", "", ".hidden", "Settings.json", "a\nb",
                "inventory/../settings.json", "inventory/..", "inventory/.x", "inventory/", "Inventory/n1", "inventory/n1\nx",
                "inventory/-n1", "inventory/n1.tmp-0123456789ab")) {
            assertThrows(IllegalArgumentException.class, () -> store.put(key, text("x"), Store.ABSENT), key);
        }
        assertThrows(IllegalArgumentException.class, () -> store.list("../etc"));
        assertThrows(IllegalArgumentException.class, () -> store.list("inventory/n1"));
    }

    @Test
    void aDocumentLargerThanOneWriteSliceIsWrittenWhole() throws Exception {
        FileStore store = FileStore.open(state);
        byte[] big = new byte[3 * 64 * 1024 + 17];
        new java.util.Random(3).nextBytes(big);
        store.put("plans.json", big, Store.ABSENT).orElseThrow();
        assertArrayEquals(big, Files.readAllBytes(state.resolve("plans.json")));
        assertArrayEquals(big, FileStore.open(state).get("plans.json").orElseThrow().value());
    }

    @Test
    void aCollectionHoldsOneFileAMemberAndListsThemWithTheirVersions() throws Exception {
        FileStore store = FileStore.open(state);
        assertEquals(java.util.Map.of(), store.list("inventory"), "nothing yet, not even the folder");
        long a = store.put("inventory/gpu001", text("a"), Store.ABSENT).orElseThrow();
        long b = store.put("inventory/GPU.2_x-y", text("b"), Store.ABSENT).orElseThrow();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("inventory"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("inventory/gpu001"))));
        var listed = store.list("inventory");
        assertEquals(List.of("inventory/GPU.2_x-y", "inventory/gpu001"), List.copyOf(listed.keySet()));
        assertEquals(a, listed.get("inventory/gpu001").version());
        assertEquals(b, listed.get("inventory/GPU.2_x-y").version());
        assertArrayEquals(text("a"), listed.get("inventory/gpu001").value());
        assertTrue(store.delete("inventory/gpu001", a));
        assertEquals(List.of("inventory/GPU.2_x-y"), List.copyOf(store.list("inventory").keySet()));

        // What an interrupted write left is removed when the collection is listed, never taken for a member.
        Files.writeString(state.resolve("inventory/gpu003" + io.slurmlet.agent.system.AtomicFile.TEMP_MARK + "0123456789ab"), "half");
        FileStore again = FileStore.open(state);
        assertEquals(List.of("inventory/GPU.2_x-y"), List.copyOf(again.list("inventory").keySet()));
        assertFalse(Files.exists(state.resolve("inventory/gpu003" + io.slurmlet.agent.system.AtomicFile.TEMP_MARK + "0123456789ab")));
        assertEquals(1, again.list("inventory").get("inventory/GPU.2_x-y").version(), "a member found on disk has version 1");
    }

    @Test
    void writersOfDifferentKeysGoOnTogetherAndWatchersHearEveryChangeInVersionOrder() throws Exception {
        FileStore store = FileStore.open(state);
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
        FileStore store = FileStore.open(state);
        Document<List<String>> mine = Document.in(store, "accounts.json", new com.fasterxml.jackson.core.type.TypeReference<>() { });
        assertEquals(List.of(), mine.read(List::of, "the accounts", "restore them"));
        mine.write(List.of("a"));
        long theirs = store.get("accounts.json").orElseThrow().version();
        store.put("accounts.json", text("[\"b\"]"), theirs).orElseThrow();
        StorageException refused = assertThrows(StorageException.class, () -> mine.write(List.of("c")));
        assertTrue(refused.getMessage().contains("changed by another writer"), refused.getMessage());
        assertEquals("[\"b\"]", Files.readString(state.resolve("accounts.json")));
        assertEquals(List.of("b"), mine.read(List::of, "the accounts", "restore them"));
        mine.write(List.of("c"));
    }

    private static void awaitSize(List<String> list, int size) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (list.size() < size && System.nanoTime() < until) {
            Thread.sleep(5);
        }
    }
}
