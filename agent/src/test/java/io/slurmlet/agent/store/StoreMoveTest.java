package io.slurmlet.agent.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.store.StoreMove.Moved;
import io.slurmlet.agent.trust.Pki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file-store leader's state, the container files imported and the cluster's secrets moved into a
 * real etcd (plain http on loopback), once, checked.
 */
class StoreMoveTest {

    static final byte[] KEY =
            HexFormat.of().parseHex("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");

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

    /** A leader's state folder as the file store leaves it, with the cluster's secrets: its CA, munge key and admin token. */
    private FileStore leaderState() throws Exception {
        FileStore files = FileStore.open(state);
        files.put("settings.json", StoreContract.text("{\"settings\":{\"enabled\":true}}"), Store.ABSENT)
                .orElseThrow();
        files.put("accounts.json", StoreContract.text("{\"accounts\":[]}"), Store.ABSENT)
                .orElseThrow();
        files.put("agents.json", StoreContract.text("{\"n1\":\"sha256:ab\"}"), Store.ABSENT)
                .orElseThrow();
        for (int i = 1; i <= 3; i++) {
            files.put("inventory/n" + i, StoreContract.text("{\"name\":\"n" + i + "\"}"), Store.ABSENT)
                    .orElseThrow();
        }
        files.put(
                        "removed/n4",
                        StoreContract.text(
                                "{\"removed\":\"2026-12-01T12:00:00Z\",\"by\":\"root\",\"join_token\":\"\"}"),
                        Store.ABSENT)
                .orElseThrow();
        Pki.open(state.resolve(Pki.DIR), List.of("127.0.0.1"));
        Files.writeString(state.resolve("admin.token"), "secret-admin-token");
        Files.writeString(state.resolve("munge.key"), "secret-munge-key");
        return files;
    }

    /** The site's key file that seals the cluster's secrets in etcd: 64 hex digits, mode 0600. */
    private Path keyFile(Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("secrets.key"), HexFormat.of().formatHex(KEY) + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private Moved move(EtcdStore to, Path keyFile) throws IOException {
        return StoreMove.move(state, state.resolve("admin.token"), keyFile, to);
    }

    /** What the sealed secrets in {@code to} open to with the site's key. */
    private static Map<String, byte[]> opened(EtcdStore to) throws IOException {
        return new SealedSecrets(KEY).open(to.reserved(SealedSecrets.KEY).orElseThrow(), "etcd");
    }

    @Test
    void everyDocumentAndMachineIsMovedReadBackAndTheFileStoreIsNoLongerOpened(@TempDir Path conf) throws Exception {
        FileStore files = leaderState();
        try (EtcdStore to = etcd.store("/moved/")) {
            StoreMove.Moved moved = move(to, keyFile(conf));
            assertEquals(
                    List.of(
                            "settings.json",
                            "accounts.json",
                            "agents.json",
                            "inventory/n1",
                            "inventory/n2",
                            "inventory/n3",
                            "removed/n4"),
                    List.copyOf(moved.keys().keySet()));
            assertEquals(
                    List.of("removed/n4"),
                    List.copyOf(to.list("removed").keySet()),
                    "a removed name stays refused after the move");
            assertArrayEquals(
                    files.get("settings.json").orElseThrow().value(),
                    to.get("settings.json").orElseThrow().value());
            assertEquals(
                    List.of("inventory/n1", "inventory/n2", "inventory/n3"),
                    List.copyOf(to.list("inventory").keySet()));
            String keys = etcd.etcdctl("get", "--prefix", "--keys-only", "/moved/");
            assertFalse(
                    keys.contains("token") || keys.contains("munge"),
                    "no secret of the folder is in etcd by name: " + keys);
            String all = etcd.etcdctl("get", "--prefix", "/moved/");
            assertFalse(
                    all.contains("secret-munge-key")
                            || all.contains("secret-admin-token")
                            || all.contains("PRIVATE KEY"),
                    "nor in the clear: " + all);

            IOException refused = assertThrows(IOException.class, () -> StoreMove.refuseMoved(state));
            assertTrue(
                    refused.getMessage().contains("Set slurmlet.leader.store.kind: etcd")
                            && refused.getMessage().contains("/moved/"),
                    refused.getMessage());
            IOException again = assertThrows(IOException.class, () -> move(to, keyFile(conf)));
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
        Path key = keyFile(conf);
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        // Plain http is taken only where the site says so: whoever can write the prefix is the cluster's admin.
        assertEquals(
                2,
                StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)),
                err::toString);
        assertTrue(
                err.toString()
                                .contains("nothing moved: slurmlet.leader.store.etcd.endpoints has " + etcd.endpoint
                                        + ", plain http")
                        && err.toString().contains("insecure-plaintext: true"),
                err.toString());
        assertEquals("", out.toString());
        err.reset();
        Files.writeString(
                yaml, Files.readString(yaml).replace("timeout: 3s", "timeout: 3s\n        insecure-plaintext: true"));
        // The secrets go sealed, or nothing goes: without the key file the cluster's CA would stay behind.
        assertEquals(
                2,
                StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)),
                err::toString);
        assertTrue(
                err.toString()
                                .contains("nothing moved: " + yaml
                                        + " sets no slurmlet.leader.store.etcd.secrets-key-file")
                        && err.toString().contains("openssl rand -hex 32"),
                err.toString());
        assertEquals(
                "",
                etcd.etcdctl("get", "--prefix", "--keys-only", "/by-command/").strip());
        err.reset();
        Files.writeString(
                yaml, Files.readString(yaml).replace("timeout: 3s", "timeout: 3s\n        secrets-key-file: " + key));
        assertEquals(
                0,
                StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)),
                err::toString);
        assertTrue(
                out.toString().contains("moved 7 keys")
                        && out.toString().contains("the cluster's ca.crt, ca.key, munge.key, admin.token " + "(sealed)")
                        && out.toString().contains("/by-command/"),
                out.toString());
        assertEquals(
                1,
                StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)));
        assertTrue(
                err.toString().contains("nothing moved: ") && err.toString().contains("was moved already"),
                err.toString());

        Files.writeString(yaml, "slurmlet:\n  state-dir: %s\n".formatted(state));
        err.reset();
        assertEquals(
                2,
                StoreMove.run(yaml.toString(), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)));
        assertTrue(err.toString().contains("slurmlet.leader.store.kind file: set it to etcd"), err.toString());
    }

    @Test
    void anEtcdThatAlreadyHoldsSlurmletsStateIsRefusedAndTheFolderLeftAsItWas(@TempDir Path conf) throws Exception {
        leaderState();
        try (EtcdStore to = etcd.store("/taken/")) {
            to.put("inventory/n9", StoreContract.text("{}"), Store.ABSENT).orElseThrow();
            IOException refused = assertThrows(IOException.class, () -> move(to, keyFile(conf)));
            assertTrue(
                    refused.getMessage().contains("already holds slurmlet's state (inventory/n9)"),
                    refused.getMessage());
            assertTrue(
                    to.get("settings.json").isEmpty()
                            && to.reserved(SealedSecrets.KEY).isEmpty(),
                    "nothing written");
            assertFalse(Files.exists(state.resolve(StoreMove.MARK)));
            StoreMove.refuseMoved(state); // the file store opens as before
        }
    }

    @Test
    void aFolderThatIsNoLeadersOrHoldsTheOldInventoryIsNotMoved(@TempDir Path conf) throws Exception {
        try (EtcdStore to = etcd.store("/empty/")) {
            IOException none = assertThrows(IOException.class, () -> move(to, keyFile(conf)));
            assertTrue(none.getMessage().contains("holds no settings.json"), none.getMessage());
            leaderState();
            Files.writeString(state.resolve("inventory.json"), "{}");
            IOException old = assertThrows(IOException.class, () -> move(to, keyFile(conf)));
            assertTrue(old.getMessage().contains("inventory.json of slurmlet 0.1"), old.getMessage());
            assertEquals(java.util.Map.of(), to.list("inventory"));
        }
    }

    /** A folder whose munge key was rotated: the move seals the rotation too, and the next leader takes it with the key. */
    @Test
    void aRotatedMungeKeyIsMovedWithItsRotation(@TempDir Path conf, @TempDir Path other) throws Exception {
        leaderState();
        Files.writeString(state.resolve(SealedSecrets.MUNGE_ROTATION_FILE), "{\"rotation\":3,\"secret\":\"x\"}");
        try (EtcdStore to = etcd.store("/rotated/")) {
            Moved moved = move(to, keyFile(conf));
            assertEquals(
                    List.of("ca.crt", "ca.key", "munge.key", "admin.token", SealedSecrets.MUNGE_ROTATION_FILE),
                    moved.secrets());
            io.slurmlet.agent.leader.LeaderSecrets.whenElected(
                    to, keyFile(conf), other, other.resolve("admin.token"), List.of("127.0.0.1"));
            assertArrayEquals(
                    Files.readAllBytes(state.resolve(SealedSecrets.MUNGE_ROTATION_FILE)),
                    Files.readAllBytes(other.resolve(SealedSecrets.MUNGE_ROTATION_FILE)));
        }
    }

    /** A folder whose leader made Slurm's keys: the move seals them too, and the next leader takes them, 0400. */
    @Test
    void aFoldersSlurmKeysAreMovedWithIt(@TempDir Path conf, @TempDir Path other) throws Exception {
        leaderState();
        io.slurmlet.agent.leader.SlurmKeys.open(state, java.time.Clock.systemUTC());
        try (EtcdStore to = etcd.store("/slurmkeys/")) {
            Moved moved = move(to, keyFile(conf));
            assertEquals(
                    List.of("ca.crt", "ca.key", "munge.key", "admin.token", SealedSecrets.SLURM_KEYS_FILE),
                    moved.secrets());
            io.slurmlet.agent.leader.LeaderSecrets.whenElected(
                    to, keyFile(conf), other, other.resolve("admin.token"), List.of("127.0.0.1"));
            assertArrayEquals(
                    Files.readAllBytes(state.resolve(SealedSecrets.SLURM_KEYS_FILE)),
                    Files.readAllBytes(other.resolve(SealedSecrets.SLURM_KEYS_FILE)));
            assertEquals(
                    "r--------",
                    java.nio.file.attribute.PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(other.resolve(SealedSecrets.SLURM_KEYS_FILE))));
        }
    }

    /**
     * The move seals the folder's CA, munge key and admin token into etcd, so that another
     * leader-eligible machine that leads first — one with a CA of its own, made at an earlier start —
     * takes the cluster's, as every leader does once elected, and never puts its own there.
     */
    @Test
    void theMoveSealsTheFoldersSecretsAndALeaderWithItsOwnCaTakesTheClusters(@TempDir Path conf, @TempDir Path other)
            throws Exception {
        leaderState();
        try (EtcdStore to = etcd.store("/sealed/")) {
            Moved moved = move(to, keyFile(conf));
            assertEquals(List.of("ca.crt", "ca.key", "munge.key", "admin.token"), moved.secrets());
            Map<String, byte[]> sealed = opened(to);
            for (var file :
                    SealedSecrets.files(state, state.resolve("admin.token")).entrySet()) {
                assertArrayEquals(
                        Files.readAllBytes(file.getValue()),
                        sealed.get(file.getKey()),
                        file.getKey() + " is the folder's");
            }
            byte[] blob = to.reserved(SealedSecrets.KEY).orElseThrow();

            String clusterCa =
                    Pki.open(state.resolve(Pki.DIR), List.of("127.0.0.1")).caHash();
            assertFalse(
                    clusterCa.equals(Pki.open(other.resolve(Pki.DIR), List.of("127.0.0.1"))
                            .caHash()),
                    "a CA of its own");
            Files.writeString(other.resolve("munge.key"), "its-own-munge-key");
            Files.writeString(other.resolve("admin.token"), "its-own-admin-token");
            io.slurmlet.agent.leader.LeaderSecrets.whenElected(
                    to, keyFile(conf), other, other.resolve("admin.token"), List.of("127.0.0.1"));
            assertArrayEquals(blob, to.reserved(SealedSecrets.KEY).orElseThrow(), "nothing of its own sealed");
            for (String f : List.of("pki/ca.crt", "pki/ca.key", "munge.key", "admin.token")) {
                assertArrayEquals(
                        Files.readAllBytes(state.resolve(f)),
                        Files.readAllBytes(other.resolve(f)),
                        f + " is the cluster's");
            }
            assertEquals(
                    clusterCa,
                    Pki.open(other.resolve(Pki.DIR), List.of("127.0.0.1")).caHash(),
                    "it serves the cluster's CA");
        }
    }

    /** A key file that is not set right stops the move before anything is written, naming the setting, the file and the fix. */
    @Test
    void aMoveWithoutAUsableSecretsKeyFileIsRefusedAndWritesNothing(@TempDir Path conf) throws Exception {
        leaderState();
        try (EtcdStore to = etcd.store("/unkeyed/")) {
            Path missing = conf.resolve("none.key");
            IOException none = assertThrows(IOException.class, () -> move(to, missing));
            assertTrue(
                    none.getMessage()
                            .contains("slurmlet.leader.store.etcd.secrets-key-file is " + missing
                                    + ", which does not exist: " + "make it once with 'openssl rand -hex 32 > "
                                    + missing),
                    none.getMessage());
            Path open = keyFile(conf);
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
            IOException readable = assertThrows(IOException.class, () -> move(to, open));
            assertTrue(
                    readable.getMessage()
                            .contains("secrets-key-file " + open + " is readable by others (rw-r--r--): chmod 600 "
                                    + open),
                    readable.getMessage());
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-------"));
            Files.writeString(open, "not-a-key");
            IOException bad = assertThrows(IOException.class, () -> move(to, open));
            assertTrue(
                    bad.getMessage()
                            .contains("secrets-key-file " + open
                                    + " does not hold 64 hex digits (it holds 9 characters)"),
                    bad.getMessage());

            assertEquals(
                    "",
                    etcd.etcdctl("get", "--prefix", "--keys-only", "/unkeyed/").strip(),
                    "nothing written");
            assertFalse(Files.exists(state.resolve(StoreMove.MARK)));
            StoreMove.refuseMoved(state); // the file store opens as before
        }
    }

    /** A folder without one of the cluster's secrets is not moved: a leader on etcd could only make new ones. */
    @Test
    void aFolderWithoutTheClustersSecretsIsNotMoved(@TempDir Path conf) throws Exception {
        leaderState();
        Files.delete(state.resolve("pki/ca.key"));
        try (EtcdStore to = etcd.store("/unsecret/")) {
            IOException refused = assertThrows(IOException.class, () -> move(to, keyFile(conf)));
            assertTrue(
                    refused.getMessage()
                            .contains("lacks " + state.resolve("pki/ca.key") + ", of the cluster's secrets"),
                    refused.getMessage());
            assertEquals(
                    "",
                    etcd.etcdctl("get", "--prefix", "--keys-only", "/unsecret/").strip(),
                    "nothing written");
        }
    }

    /** The files an admin imported for the machines go with the state, each part and manifest read back, and the leader on etcd serves them. */
    @Test
    void importedContainerFilesAreThereAfterTheMove(@TempDir Path conf) throws Exception {
        FileStore files = leaderState();
        byte[] deb = new byte[512 * 1024 * 2 + 10];
        new java.util.Random(5).nextBytes(deb);
        String sha256 = io.slurmlet.agent.reconcile.ManagedFiles.sha256(deb);
        Path tableFile = Files.writeString(conf.resolve("table.json"), """
                {"release": "site", "artifacts": [
                  {"name": "enroot", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot_4.1.2-1_amd64.deb", "sha256": "%s"}
                ]}""".formatted(sha256));
        var table = io.slurmlet.agent.containers.ArtifactTable.load(
                java.util.Optional.of(tableFile), java.util.Optional.empty());
        var imported = io.slurmlet.agent.leader.ContainerFiles.open(files);
        imported.put(
                table, "enroot_4.1.2-1_amd64.deb", java.util.Optional.empty(), new java.io.ByteArrayInputStream(deb));

        try (EtcdStore to = etcd.store("/containers/")) {
            Moved moved = move(to, keyFile(conf));
            String id = sha256.substring(0, 56);
            assertTrue(
                    moved.keys()
                            .keySet()
                            .containsAll(List.of(
                                    "container-parts/" + id + "-0",
                                    "container-parts/" + id + "-1",
                                    "container-parts/" + id + "-2",
                                    "container-files/" + id)),
                    moved.keys().toString());
            var served = io.slurmlet.agent.leader.ContainerFiles.open(to);
            assertEquals(imported.held(), served.held());
            var bytes = new java.io.ByteArrayOutputStream();
            served.read(sha256, bytes::write);
            assertArrayEquals(deb, bytes.toByteArray());
        }
    }

    /**
     * A store moved by a slurmlet that left the secrets in the folder: no leader leads it (none may
     * make a CA of its own for it), and the move run again on that folder puts only its secrets there.
     */
    @Test
    void aStoreMovedWithoutItsSecretsGetsThemFromTheMoveRunAgain(@TempDir Path conf, @TempDir Path other)
            throws Exception {
        leaderState();
        try (EtcdStore to = etcd.store("/unsealed/")) {
            move(to, keyFile(conf));
            etcd.etcdctl("del", "/unsealed/" + SealedSecrets.KEY); // as an earlier slurmlet's move left it
            Pki.open(other.resolve(Pki.DIR), List.of("127.0.0.1"));
            Files.writeString(other.resolve("munge.key"), "its-own-munge-key");
            Files.writeString(other.resolve("admin.token"), "its-own-admin-token");
            IOException refused = assertThrows(
                    IOException.class,
                    () -> io.slurmlet.agent.leader.LeaderSecrets.whenElected(
                            to, keyFile(conf), other, other.resolve("admin.token"), List.of("127.0.0.1")));
            assertTrue(
                    refused.getMessage()
                            .contains("run 'slurmlet-agent store-move' again on the machine the state was moved from"),
                    refused.getMessage());
            assertTrue(to.reserved(SealedSecrets.KEY).isEmpty(), "nothing of its own sealed");

            Moved again = move(to, keyFile(conf));
            assertEquals(Map.of(), again.keys());
            assertTrue(
                    again.toString().startsWith("put the cluster's ca.crt, ca.key, munge.key, admin.token into "),
                    again.toString());
            assertArrayEquals(
                    Files.readAllBytes(state.resolve("munge.key")), opened(to).get("munge.key"));
            io.slurmlet.agent.leader.LeaderSecrets.whenElected(
                    to, keyFile(conf), other, other.resolve("admin.token"), List.of("127.0.0.1"));
            assertArrayEquals(
                    Files.readAllBytes(state.resolve("pki/ca.key")), Files.readAllBytes(other.resolve("pki/ca.key")));

            IOException thrice = assertThrows(IOException.class, () -> move(to, keyFile(conf)));
            assertTrue(thrice.getMessage().contains("was moved already"), thrice.getMessage());
        }
        try (EtcdStore elsewhere = etcd.store("/elsewhere/")) {
            IOException refused = assertThrows(IOException.class, () -> move(elsewhere, keyFile(conf)));
            assertTrue(refused.getMessage().contains("was moved already"), refused.getMessage());
            assertEquals(
                    "",
                    etcd.etcdctl("get", "--prefix", "--keys-only", "/elsewhere/")
                            .strip());
        }
    }
}
