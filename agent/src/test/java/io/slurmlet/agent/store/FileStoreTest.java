package io.slurmlet.agent.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's contract on files, and what only files have: their names, modes and an interrupted write's leftovers. */
class FileStoreTest extends StoreContract {

    @TempDir
    Path state;

    @Override
    Store store() throws Exception {
        return FileStore.open(state);
    }

    @Test
    void aDocumentIsARootOnlyFileOfTheStateDirectory() throws Exception {
        FileStore store = FileStore.open(state);
        long v = store.put("settings.json", text("a"), Store.ABSENT).orElseThrow();
        store.put("settings.json", text("c"), v).orElseThrow();
        assertEquals("c", Files.readString(state.resolve("settings.json")));
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("settings.json"))));
        byte[] big = new byte[3 * 64 * 1024 + 17];
        new java.util.Random(3).nextBytes(big);
        store.put("plans.json", big, Store.ABSENT).orElseThrow();
        assertArrayEquals(big, Files.readAllBytes(state.resolve("plans.json")));
        assertArrayEquals(
                big, FileStore.open(state).get("plans.json").orElseThrow().value());
        assertTrue(
                store.delete("plans.json", store.get("plans.json").orElseThrow().version()));
        assertFalse(Files.exists(state.resolve("plans.json")));
    }

    @Test
    void aKeyFoundOnDiskAtOpenHasAVersionAndIsWrittenOnlyFromIt() throws Exception {
        Files.writeString(state.resolve("lending.json"), "{}");
        Files.writeString(state.resolve("lending.json" + ".tmp-0123456789ab"), "half");
        FileStore store = FileStore.open(state);
        assertFalse(
                Files.exists(state.resolve("lending.json.tmp-0123456789ab")),
                "an interrupted write's leftover is removed");
        assertTrue(store.put("lending.json", text("{\"x\":1}"), Store.ABSENT).isEmpty());
        long version = store.get("lending.json").orElseThrow().version();
        assertTrue(store.put("lending.json", text("{\"x\":1}"), version).isPresent());
    }

    @Test
    void aCollectionIsAFolderOfOneFileAMemberAndAnInterruptedWritesLeftoverIsNoMember() throws Exception {
        FileStore store = FileStore.open(state);
        store.put("inventory/gpu001", text("a"), Store.ABSENT).orElseThrow();
        store.put("inventory/GPU.2_x-y", text("b"), Store.ABSENT).orElseThrow();
        assertEquals(
                "rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("inventory"))));
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("inventory/gpu001"))));
        Files.writeString(
                state.resolve("inventory/gpu003" + io.slurmlet.agent.system.AtomicFile.TEMP_MARK + "0123456789ab"),
                "half");
        FileStore again = FileStore.open(state);
        assertEquals(
                List.of("inventory/GPU.2_x-y", "inventory/gpu001"),
                List.copyOf(again.list("inventory").keySet()));
        assertFalse(Files.exists(
                state.resolve("inventory/gpu003" + io.slurmlet.agent.system.AtomicFile.TEMP_MARK + "0123456789ab")));
        assertEquals(
                1,
                again.list("inventory").get("inventory/GPU.2_x-y").version(),
                "a member found on disk has version 1");
    }
}
