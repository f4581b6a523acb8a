package io.slurmlet.agent.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A file-store leader's state moved into a real etcd (plain http on loopback), once, checked. */
class StoreMoveTest {

    @TempDir
    static Path etcdDir;
    static EtcdProcess etcd;

    @TempDir
    Path state;

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdProcess.start(etcdDir, false);
    }

    @AfterAll
    static void stop() throws Exception {
        etcd.close();
    }

    /** A leader's state folder as the file store leaves it, with the secrets that stay in it. */
    private FileStore leaderState() throws Exception {
        FileStore files = FileStore.open(state);
        files.put("settings.json", StoreContract.text("{\"settings\":{\"enabled\":true}}"), Store.ABSENT).orElseThrow();
        files.put("accounts.json", StoreContract.text("{\"accounts\":[]}"), Store.ABSENT).orElseThrow();
        files.put("agents.json", StoreContract.text("{\"n1\":\"sha256:ab\"}"), Store.ABSENT).orElseThrow();
        for (int i = 1; i <= 3; i++) {
            files.put("inventory/n" + i, StoreContract.text("{\"name\":\"n" + i + "\"}"), Store.ABSENT).orElseThrow();
        }
        files.put("removed/n4", StoreContract.text("{\"removed\":\"2026-12-01T12:00:00Z\",\"by\":\"root\",\"join_token\":\"\"}"),
                Store.ABSENT).orElseThrow();
        Files.writeString(state.resolve("admin.token"), "secret-admin-token");
        Files.writeString(state.resolve("munge.key"), "secret-munge-key");
        return files;
    }

    @Test
    void everyDocumentAndMachineIsMovedReadBackAndTheFileStoreIsNoLongerOpened() throws Exception {
        FileStore files = leaderState();
        try (EtcdStore to = etcd.store("/moved/")) {
            StoreMove.Moved moved = StoreMove.move(state, to);
            assertEquals(List.of("settings.json", "accounts.json", "agents.json", "inventory/n1", "inventory/n2", "inventory/n3",
                    "removed/n4"), List.copyOf(moved.keys().keySet()));
            assertEquals(List.of("removed/n4"), List.copyOf(to.list("removed").keySet()), "a removed name stays refused after the move");
            assertArrayEquals(files.get("settings.json").orElseThrow().value(), to.get("settings.json").orElseThrow().value());
            assertEquals(List.of("inventory/n1", "inventory/n2", "inventory/n3"), List.copyOf(to.list("inventory").keySet()));
            String keys = etcd.etcdctl("get", "--prefix", "--keys-only", "/moved/");
            assertFalse(keys.contains("token") || keys.contains("munge"), "no secret of the folder is in etcd: " + keys);

            IOException refused = assertThrows(IOException.class, () -> StoreMove.refuseMoved(state));
            assertTrue(refused.getMessage().contains("Set slurmlet.leader.store.kind: etcd") && refused.getMessage().contains("/moved/"),
                    refused.getMessage());
            IOException again = assertThrows(IOException.class, () -> StoreMove.move(state, to));
            assertTrue(again.getMessage().contains("was moved already"), again.getMessage());
        }
    }

    @Test
    void theCommandReadsTheAgentsConfigurationAndMovesOnceOrSaysWhyNot(@TempDir Path conf) throws Exception {
        leaderState();
        Path yaml = conf.resolve("agent.yaml");
        Files.writeString(yaml, """
                slurmlet:
                  state-dir: %s
                  leader:
                    store:
                      kind: etcd
                      etcd:
                        endpoints: [%s]
                        prefix: /by-command/
                        timeout: 3s
                """.formatted(state, etcd.endpoint));
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        // Plain http is taken only where the site says so: whoever can write the prefix is the cluster's admin.
        assertEquals(2, StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)), err::toString);
        assertTrue(err.toString().contains("nothing moved: slurmlet.leader.store.etcd.endpoints has " + etcd.endpoint + ", plain http")
                && err.toString().contains("insecure-plaintext: true"), err.toString());
        assertEquals("", out.toString());
        err.reset();
        Files.writeString(yaml, Files.readString(yaml).replace("timeout: 3s", "timeout: 3s\n        insecure-plaintext: true"));
        assertEquals(0, StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)), err::toString);
        assertTrue(out.toString().contains("moved 7 keys") && out.toString().contains("/by-command/"), out.toString());
        assertEquals(1, StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)));
        assertTrue(err.toString().contains("nothing moved: ") && err.toString().contains("was moved already"), err.toString());

        Files.writeString(yaml, "slurmlet:\n  state-dir: %s\n".formatted(state));
        err.reset();
        assertEquals(2, StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)));
        assertTrue(err.toString().contains("slurmlet.leader.store.kind file: set it to etcd"), err.toString());
    }

    @Test
    void anEtcdThatAlreadyHoldsSlurmletsStateIsRefusedAndTheFolderLeftAsItWas() throws Exception {
        leaderState();
        try (EtcdStore to = etcd.store("/taken/")) {
            to.put("inventory/n9", StoreContract.text("{}"), Store.ABSENT).orElseThrow();
            IOException refused = assertThrows(IOException.class, () -> StoreMove.move(state, to));
            assertTrue(refused.getMessage().contains("already holds slurmlet's state (inventory/n9)"), refused.getMessage());
            assertTrue(to.get("settings.json").isEmpty(), "nothing written");
            assertFalse(Files.exists(state.resolve(StoreMove.MARK)));
            StoreMove.refuseMoved(state); // the file store opens as before
        }
    }

    @Test
    void aFolderThatIsNoLeadersOrHoldsTheOldInventoryIsNotMoved() throws Exception {
        try (EtcdStore to = etcd.store("/empty/")) {
            IOException none = assertThrows(IOException.class, () -> StoreMove.move(state, to));
            assertTrue(none.getMessage().contains("holds no settings.json"), none.getMessage());
            leaderState();
            Files.writeString(state.resolve("inventory.json"), "{}");
            IOException old = assertThrows(IOException.class, () -> StoreMove.move(state, to));
            assertTrue(old.getMessage().contains("inventory.json of slurmlet 0.1"), old.getMessage());
            assertEquals(java.util.Map.of(), to.list("inventory"));
        }
    }
}
