package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.store.SealedSecrets;
import io.slurmlet.model.plan.MungeKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sealing of the cluster's secrets (store.SealedSecrets), the site's key file, and the leaders'
 * way with them through a real etcd; after a store-move, in store.StoreMoveTest.
 */
class LeaderSecretsTest {

    @TempDir
    Path dir;

    private static byte[] key(int fill) {
        byte[] k = new byte[32];
        java.util.Arrays.fill(k, (byte) fill);
        return k;
    }

    @Test
    void sealedSecretsOpenWithTheSameKeyAndShowNothingInTheClear() throws IOException {
        SealedSecrets secrets = new SealedSecrets(key(7));
        byte[] munge = "munge-key-bytes-0123456789".getBytes(StandardCharsets.US_ASCII);
        byte[] sealed = secrets.seal(
                Map.of("munge.key", munge, "admin.token", "tok-abcdef".getBytes(StandardCharsets.US_ASCII)), "here");
        String text = new String(sealed, StandardCharsets.US_ASCII);
        assertFalse(
                text.contains("munge-key")
                        || text.contains(java.util.Base64.getEncoder().encodeToString(munge))
                        || text.contains("tok-abcdef"),
                text);
        Map<String, byte[]> opened = secrets.open(sealed, "here");
        assertArrayEquals(munge, opened.get("munge.key"));
        assertEquals("tok-abcdef", new String(opened.get("admin.token"), StandardCharsets.US_ASCII));
    }

    @Test
    void anotherKeyOrAChangedByteOpensNothingAndSaysWhatToDo() throws IOException {
        byte[] sealed =
                new SealedSecrets(key(7)).seal(Map.of("munge.key", new byte[] {1, 2, 3}), "etcd key /s/_secrets");
        IOException wrongKey =
                assertThrows(IOException.class, () -> new SealedSecrets(key(8)).open(sealed, "etcd key /s/_secrets"));
        assertTrue(
                wrongKey.getMessage()
                        .contains("secrets-key-file differs from the one the first leader used; copy that file here"),
                wrongKey.getMessage());
        String tampered = new String(sealed, StandardCharsets.US_ASCII).replace("\"v\":1", "\"v\":2");
        IOException newer = assertThrows(
                IOException.class,
                () -> new SealedSecrets(key(7)).open(tampered.getBytes(StandardCharsets.US_ASCII), "x"));
        assertTrue(newer.getMessage().contains("another format"), newer.getMessage());
    }

    /** Two leader-eligible machines on a real etcd: the first puts its secrets there, the second takes them in place of its own. */
    @Test
    void theFirstLeaderPutsItsSecretsInEtcdAndTheNextTakesThemInPlaceOfItsOwn() throws Exception {
        try (var etcd = io.slurmlet.agent.store.EtcdProcess.start(Files.createDirectories(dir.resolve("etcd")), false);
                var store = io.slurmlet.agent.store.EtcdProcess.store(java.util.List.of(etcd), "/sec/")) {
            Path first = dir.resolve("first");
            LeaderSecrets a = new LeaderSecrets(key(3), SealedSecrets.files(first, first.resolve("admin.token")));
            a.sync(store, "etcd", false, () -> {
                io.slurmlet.agent.trust.Pki.open(first.resolve("pki"), java.util.List.of("127.0.0.1"));
                PlanPublisher.mungeKey(first);
                io.slurmlet.agent.trust.TokenFile.loadOrCreate(first.resolve("admin.token"));
            });
            Path second = dir.resolve("second");
            io.slurmlet.agent.trust.Pki.open(
                    second.resolve("pki"),
                    java.util.List.of("127.0.0.1")); // a CA of its own, and its leader certificate
            PlanPublisher.mungeKey(second);
            LeaderSecrets b = new LeaderSecrets(key(3), SealedSecrets.files(second, second.resolve("admin.token")));
            b.sync(store, "etcd", true, () -> {
                throw new AssertionError("the secrets are in etcd: nothing of its own is made");
            });
            for (String f : java.util.List.of("pki/ca.crt", "pki/ca.key", "munge.key", "admin.token")) {
                assertArrayEquals(
                        Files.readAllBytes(first.resolve(f)),
                        Files.readAllBytes(second.resolve(f)),
                        f + " is the first leader's");
            }
            assertFalse(Files.exists(second.resolve("pki/leader.crt")), "the certificate its own CA signed is retired");
            assertEquals(
                    "r--------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(second.resolve("munge.key"))));
            assertEquals(
                    "rw-------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(second.resolve("pki/ca.key"))));
            // The CA opens with a leader certificate of the second machine's, signed by the cluster's CA.
            var pki = io.slurmlet.agent.trust.Pki.open(second.resolve("pki"), java.util.List.of("127.0.0.1"));
            assertEquals(
                    io.slurmlet.agent.trust.Pki.open(first.resolve("pki"), java.util.List.of("127.0.0.1"))
                            .caHash(),
                    pki.caHash());
            // A machine with another key file opens nothing, and says so.
            LeaderSecrets wrong = new LeaderSecrets(
                    key(4), SealedSecrets.files(dir.resolve("third"), dir.resolve("third/admin.token")));
            IOException e = assertThrows(IOException.class, () -> wrong.sync(store, "etcd", true, () -> {}));
            assertTrue(e.getMessage().contains("differs from the one the first leader used"), e.getMessage());
            assertFalse(Files.exists(dir.resolve("third/munge.key")));
        }
    }

    /**
     * A store that holds a cluster's state and not its secrets (moved by a store-move that left them
     * in its folder, or its {@code _secrets} lost): no elected leader puts its own there, not even one
     * that holds a CA, munge key and admin token (they may be its own, made at an earlier start, and
     * every joined machine pinned the cluster's CA). It says how to put the cluster's there.
     */
    @Test
    void aStoreHoldingAClustersStateWithoutItsSecretsIsNeverGivenALeadersOwn() throws Exception {
        try (var etcd = io.slurmlet.agent.store.EtcdProcess.start(Files.createDirectories(dir.resolve("etcd")), false);
                var store = io.slurmlet.agent.store.EtcdProcess.store(java.util.List.of(etcd), "/moved/")) {
            store.put(
                            SettingsStore.FILE_NAME,
                            "{}".getBytes(StandardCharsets.UTF_8),
                            io.slurmlet.agent.store.Store.ABSENT)
                    .orElseThrow();
            Path keyFile =
                    Files.writeString(dir.resolve("secrets.key"), HexFormat.of().formatHex(key(3)));
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
            Path fresh = dir.resolve("fresh");
            Path own = dir.resolve("own");
            io.slurmlet.agent.trust.Pki.open(own.resolve("pki"), java.util.List.of("127.0.0.1"));
            PlanPublisher.mungeKey(own);
            io.slurmlet.agent.trust.TokenFile.loadOrCreate(own.resolve("admin.token"));
            for (Path machine : java.util.List.of(fresh, own)) {
                IOException refused = assertThrows(
                        IOException.class,
                        () -> LeaderSecrets.whenElected(
                                store,
                                keyFile,
                                machine,
                                machine.resolve("admin.token"),
                                java.util.List.of("127.0.0.1")));
                assertTrue(
                        refused.getMessage()
                                        .contains("holds a cluster's state but not its secrets ("
                                                + store.where("_secrets") + ")")
                                && refused.getMessage()
                                        .contains(
                                                "run 'slurmlet-agent store-move' again on the machine the state was moved from")
                                && refused.getMessage().contains("or restore _secrets from a backup of etcd"),
                        refused.getMessage());
            }
            assertFalse(
                    etcd.etcdctl("get", "--prefix", "--keys-only", "/moved/").contains("_secrets"), "nothing sealed");
            assertFalse(
                    Files.exists(fresh.resolve("munge.key")) || Files.exists(fresh.resolve("pki")),
                    "nothing of its own made");
        }
    }

    @Test
    void theKeyFileMustBe64HexDigitsReadableByItsOwnerOnly() throws IOException {
        Path file = dir.resolve("secrets.key");
        IOException missing = assertThrows(IOException.class, () -> SealedSecrets.readKeyFile(file));
        assertTrue(missing.getMessage().contains("openssl rand -hex 32"), missing.getMessage());
        Files.writeString(file, HexFormat.of().formatHex(key(1)) + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        IOException open = assertThrows(IOException.class, () -> SealedSecrets.readKeyFile(file));
        assertTrue(open.getMessage().contains("readable by others (rw-r--r--): chmod 600 " + file), open.getMessage());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertArrayEquals(key(1), SealedSecrets.readKeyFile(file));
        Files.writeString(file, "not hex at all");
        IOException bad = assertThrows(IOException.class, () -> SealedSecrets.readKeyFile(file));
        assertTrue(bad.getMessage().contains("does not hold 64 hex digits (it holds 14 characters)"), bad.getMessage());
        assertFalse(bad.getMessage().contains("not hex at all"), "a key file's content is never shown");
        byte[] binary = new byte[32];
        java.util.Arrays.fill(binary, (byte) 0xc3);
        Files.write(file, binary); // openssl rand 32, without -hex
        IOException raw = assertThrows(IOException.class, () -> SealedSecrets.readKeyFile(file));
        assertTrue(raw.getMessage().contains("does not hold 64 hex digits (it holds 32 characters)"), raw.getMessage());
    }

    /**
     * A munge key rotation on a leader whose secrets are in etcd: sealed into them before the leader's
     * own files are written, taken by the next elected leader with its number and moment (a stale
     * rotation of an earlier leadership is removed, not taken), and written by no agent that does not lead.
     */
    @Test
    void aRotationOnEtcdIsSealedFirstAndTheNextLeaderKeepsItsKeyNumberAndMoment() throws Exception {
        java.time.Clock clock =
                java.time.Clock.fixed(java.time.Instant.parse("2026-12-07T10:00:00Z"), java.time.ZoneOffset.UTC);
        try (var etcd = io.slurmlet.agent.store.EtcdProcess.start(Files.createDirectories(dir.resolve("etcd")), false);
                var store = io.slurmlet.agent.store.EtcdProcess.store(java.util.List.of(etcd), "/rot/");
                var standby = io.slurmlet.agent.store.EtcdProcess.store(java.util.List.of(etcd), "/rot/")) {
            Path first = dir.resolve("first");
            LeaderSecrets a = secrets(first);
            a.sync(store, "etcd", false, () -> {
                io.slurmlet.agent.trust.Pki.open(first.resolve("pki"), java.util.List.of("127.0.0.1"));
                PlanPublisher.mungeKey(first);
                io.slurmlet.agent.trust.TokenFile.loadOrCreate(first.resolve("admin.token"));
            });
            // A machine that led before, with a rotation of its own in its folder: not the cluster's, removed.
            Path second = dir.resolve("second");
            MungeKeys.open(second, clock).rotate("root@earlier");
            LeaderSecrets b = secrets(second);
            b.sync(store, "etcd", true, () -> {});
            assertFalse(Files.exists(second.resolve(MungeKeys.ROTATION_FILE)), "an earlier leadership's rotation");
            assertEquals(0, MungeKeys.open(second, clock).current().rotation());

            MungeKeys keys = MungeKeys.open(first, clock, (k, r) -> a.putMungeRotation(store, k, r));
            MungeKeys.Rotation r = keys.rotate("root");
            assertEquals(1, r.rotation());
            Map<String, byte[]> sealed =
                    new SealedSecrets(key(3)).open(store.reserved("_secrets").orElseThrow(), "etcd");
            assertArrayEquals(Files.readAllBytes(first.resolve("munge.key")), sealed.get("munge.key"));
            assertArrayEquals(
                    Files.readAllBytes(first.resolve(MungeKeys.ROTATION_FILE)), sealed.get(MungeKeys.ROTATION_FILE));
            assertFalse(etcd.etcdctl("get", "--prefix", "/rot/").contains("switch_at"), "sealed, not in the clear");

            b.sync(store, "etcd", true, () -> {});
            MungeKeys next = MungeKeys.open(second, clock, (k, x) -> b.putMungeRotation(store, k, x));
            assertEquals(1, next.current().rotation());
            assertEquals(java.util.Optional.of(r.switchAt()), next.current().switchAt());
            assertEquals(r, next.last().orElseThrow());
            assertTrue(next.current().sameKey(keys.current().bytes()));
            assertEquals(
                    "r--------",
                    PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(second.resolve(MungeKeys.ROTATION_FILE))));
            // The next leader's own rotation goes on from the number it took.
            assertEquals(2, next.rotate("root").rotation());
            assertTrue(next.current()
                    .sameKey(secrets(dir.resolve("third"))
                            .peek(store, "etcd")
                            .orElseThrow()
                            .get("munge.key")));

            // An agent that stands by writes nothing: neither etcd nor its own folder.
            standby.election(
                    new io.slurmlet.agent.store.EtcdElection.Record("n9", "https://n9:7443"),
                    java.time.Duration.ofSeconds(5),
                    why -> {});
            byte[] before = store.reserved("_secrets").orElseThrow();
            MungeKeys refused = MungeKeys.open(first, clock, (k, x) -> a.putMungeRotation(standby, k, x));
            MungeKey held = refused.current();
            IOException e = assertThrows(IOException.class, () -> refused.rotate("root"));
            assertTrue(e.getMessage().contains("stands by"), e.getMessage());
            assertArrayEquals(before, store.reserved("_secrets").orElseThrow());
            assertEquals(held, refused.current());
            assertEquals(held, MungeKeys.open(first, clock).current());
        }
    }

    /**
     * A cluster whose sealed secrets predate Slurm's keys (they hold no {@code slurm-keys.json}): its
     * next leader syncs, removes the keys an earlier leadership left in its folder, and puts the
     * first keys it makes into the sealed secrets before its own folder; a leader after it takes
     * the same keys, 0400.
     */
    @Test
    void anOldClustersSecretsWithoutSlurmKeysStillSyncAndTheFirstKeysAreSealedBeforeTheFolder() throws Exception {
        java.time.Clock clock =
                java.time.Clock.fixed(java.time.Instant.parse("2026-12-07T10:00:00Z"), java.time.ZoneOffset.UTC);
        try (var etcd = io.slurmlet.agent.store.EtcdProcess.start(Files.createDirectories(dir.resolve("etcd")), false);
                var store = io.slurmlet.agent.store.EtcdProcess.store(java.util.List.of(etcd), "/old/")) {
            // An older leader: it seals the required secrets only.
            Path first = dir.resolve("first");
            new LeaderSecrets(key(3), SealedSecrets.files(first, first.resolve("admin.token")))
                    .sync(store, "etcd", false, () -> {
                        io.slurmlet.agent.trust.Pki.open(first.resolve("pki"), java.util.List.of("127.0.0.1"));
                        PlanPublisher.mungeKey(first);
                        io.slurmlet.agent.trust.TokenFile.loadOrCreate(first.resolve("admin.token"));
                    });
            assertFalse(new SealedSecrets(key(3))
                    .open(store.reserved("_secrets").orElseThrow(), "etcd")
                    .containsKey(SealedSecrets.SLURM_KEYS_FILE));

            // This version's leader, with keys of an earlier leadership in its folder: not the cluster's, removed.
            Path second = dir.resolve("second");
            io.slurmlet.model.plan.SlurmAuthKeys stale =
                    SlurmKeys.open(second, clock).current();
            LeaderSecrets b = secrets(second);
            b.sync(store, "etcd", true, () -> {
                throw new AssertionError("the secrets are in etcd: nothing of its own is made");
            });
            assertFalse(Files.exists(second.resolve(SlurmKeys.FILE)), "an earlier leadership's Slurm keys");
            assertArrayEquals(
                    Files.readAllBytes(first.resolve("munge.key")), Files.readAllBytes(second.resolve("munge.key")));

            SlurmKeys keys = SlurmKeys.open(second, clock, json -> {
                assertFalse(Files.exists(second.resolve(SlurmKeys.FILE)), "sealed before the folder");
                b.putSlurmKeys(store, json);
            });
            assertFalse(stale.equals(keys.current()), "new keys, not the earlier leadership's");
            Map<String, byte[]> sealed =
                    new SealedSecrets(key(3)).open(store.reserved("_secrets").orElseThrow(), "etcd");
            assertArrayEquals(
                    Files.readAllBytes(second.resolve(SlurmKeys.FILE)), sealed.get(SealedSecrets.SLURM_KEYS_FILE));
            assertArrayEquals(
                    Files.readAllBytes(second.resolve("munge.key")), sealed.get("munge.key"), "the rest kept");
            assertFalse(etcd.etcdctl("get", "--prefix", "/old/").contains("next_kid"), "sealed, not in the clear");

            Path third = dir.resolve("third");
            secrets(third).sync(store, "etcd", true, () -> {});
            assertEquals(
                    "r--------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(third.resolve(SlurmKeys.FILE))));
            assertEquals(
                    keys.current(),
                    SlurmKeys.open(third, clock, json -> {
                                throw new AssertionError("the cluster's keys are taken, not made");
                            })
                            .current());
        }
    }

    @Test
    void slurmKeysAreAnOptionalSecretNotARequiredOne() {
        assertEquals(
                dir.resolve(SlurmKeys.FILE), SealedSecrets.optionalFiles(dir).get(SealedSecrets.SLURM_KEYS_FILE));
        assertFalse(SealedSecrets.files(dir, dir.resolve("admin.token")).containsKey(SealedSecrets.SLURM_KEYS_FILE));
    }

    private LeaderSecrets secrets(Path stateDir) {
        return new LeaderSecrets(
                key(3),
                SealedSecrets.files(stateDir, stateDir.resolve("admin.token")),
                SealedSecrets.optionalFiles(stateDir));
    }

    @Test
    void theSealedMungeKeyIsTheOneTheLeaderMakes() {
        assertEquals(
                dir.resolve(PlanPublisher.MUNGE_KEY_FILE),
                SealedSecrets.files(dir, dir.resolve("admin.token")).get("munge.key"));
    }
}
