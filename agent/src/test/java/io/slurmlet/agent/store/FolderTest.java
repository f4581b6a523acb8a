package io.slurmlet.agent.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FolderTest {

    record Doc(@JsonProperty("value") String value) {}

    @TempDir
    Path state;

    @Test
    void eachMachineIsADocumentWrittenOverTheVersionItWasReadAt() throws Exception {
        Store store = FileStore.open(state);
        Folder<Doc> mine = new Folder<>(store, "things", Doc.class);
        mine.put("n1", new Doc("a"));
        mine.put("n2", new Doc("b"));
        Folder<Doc> other = new Folder<>(store, "things", Doc.class);
        assertEquals(Map.of("n1", new Doc("a"), "n2", new Doc("b")), other.readAll("the thing", "fix it"));
        other.put("n1", new Doc("c"));

        StorageException lost = assertThrows(StorageException.class, () -> mine.put("n1", new Doc("d")));
        assertTrue(
                lost.getMessage()
                        .startsWith(state.resolve("things/n1")
                                + " was changed by another writer since this leader read it;" + " nothing was written"),
                lost.getMessage());
        assertEquals(
                Map.of("n1", new Doc("c"), "n2", new Doc("b")),
                new Folder<>(store, "things", Doc.class).readAll("", ""),
                "the refused write changed nothing");
        mine.put("n2", new Doc("e"));
        mine.delete("n2");
        assertFalse(mine.has("n2"));
        assertFalse(Files.exists(state.resolve("things/n2")));
        assertTrue(Folder.holds("things", "things/n1") && !Folder.holds("things", "thingsx/n1"));
    }

    @Test
    void aDocumentThatCannotBeReadNamesItsMachineItsFileAndTheFix() throws Exception {
        Store store = FileStore.open(state);
        new Folder<>(store, "things", Doc.class).put("n1", new Doc("a"));
        Files.writeString(state.resolve("things/n1"), "{\"value\": ");
        IOException e = assertThrows(
                IOException.class, () -> new Folder<>(store, "things", Doc.class).readAll("the thing", "remove it"));
        assertTrue(
                e.getMessage().startsWith("cannot read the thing of \"n1\" in " + state.resolve("things/n1") + " ("),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("): remove it"), e.getMessage());
    }

    @Test
    void aMoveWritesOverWhateverTheDocumentHolds() throws Exception {
        Store store = FileStore.open(state);
        new Folder<>(store, "things", Doc.class).put("n1", new Doc("half a move ago"));
        Folder<Doc> moving = new Folder<>(store, "things", Doc.class);
        moving.moveIn("n1", new Doc("moved"));
        moving.moveIn("n2", new Doc("moved too"));
        assertEquals(Map.of("n1", new Doc("moved"), "n2", new Doc("moved too")), moving.readAll("", ""));
    }
}
