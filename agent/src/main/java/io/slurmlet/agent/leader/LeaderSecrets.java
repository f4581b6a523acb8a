package io.slurmlet.agent.leader;

import io.slurmlet.agent.store.EtcdStore;
import io.slurmlet.agent.store.SealedSecrets;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.agent.trust.TokenFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The cluster's secrets, which every leader must hold the same of: the CA's certificate and key (every
 * agent pins the CA), the munge key (a new one would stop every machine's munge until all had it) and
 * the admin token (ctl's). With etcd they are kept there, sealed ({@link SealedSecrets}) under a key
 * that is not in etcd: the site copies one key file to every leader-eligible machine, as it copies
 * their etcd client certificates. A store moved from a file store holds the secrets of the folder it
 * came from ({@code slurmlet-agent store-move} puts them there); on a new cluster the first leader
 * puts its own there (made at its first start). Every leader after it takes them into its state
 * folder before it opens anything that reads them; none puts its own into a store that holds a
 * cluster's state without them.
 */
public final class LeaderSecrets {

    /** The store's own key that holds them, sealed. */
    static final String KEY = SealedSecrets.KEY;

    private static final Logger LOG = Logger.getLogger(LeaderSecrets.class);
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    private final SealedSecrets seal;
    private final Map<String, Path> files;
    private final Map<String, Path> optional;

    /**
     * @param key   the 32 bytes of the site's key file
     * @param files each secret's name (as kept in etcd) and the file of this machine's that holds it
     */
    LeaderSecrets(byte[] key, Map<String, Path> files) {
        this(key, files, Map.of());
    }

    /**
     * @param optional the secrets kept only once they exist (the munge key's last rotation, Slurm's keys), and their files: one
     *                 the store lacks is removed from this machine, so that no earlier leadership's is taken for the
     *                 cluster's
     */
    LeaderSecrets(byte[] key, Map<String, Path> files, Map<String, Path> optional) {
        this.seal = new SealedSecrets(key);
        this.files = Map.copyOf(files);
        this.optional = Map.copyOf(optional);
    }

    /** The secrets of a leader whose state folder is {@code stateDir}, sealed with the site's {@code keyFile}. */
    static LeaderSecrets of(Path keyFile, Path stateDir, Path adminToken) throws IOException {
        return new LeaderSecrets(
                SealedSecrets.readKeyFile(keyFile),
                SealedSecrets.files(stateDir, adminToken),
                SealedSecrets.optionalFiles(stateDir));
    }

    /**
     * What a leader on etcd does once elected, before it opens anything that reads its secrets: takes
     * the cluster's from {@code etcd} into {@code stateDir} and {@code adminToken}; on a new cluster
     * (etcd holds no state) makes its own where missing (a CA for {@code advertise}, a munge key, an
     * admin token) and puts them there; refuses a store that holds a cluster's state without them.
     *
     * @param keyFile the site's key file ({@code slurmlet.leader.store.etcd.secrets-key-file})
     */
    public static void whenElected(EtcdStore etcd, Path keyFile, Path stateDir, Path adminToken, List<String> advertise)
            throws IOException {
        of(keyFile, stateDir, adminToken)
                .sync(etcd, etcd.where(KEY), etcd.get(SettingsStore.FILE_NAME).isPresent(), () -> {
                    Pki.open(stateDir.resolve(Pki.DIR), Pki.localNames(advertise));
                    PlanPublisher.mungeKey(stateDir);
                    TokenFile.loadOrCreate(adminToken);
                });
    }

    /**
     * Makes this machine's secret files the cluster's: taken from etcd where it holds them, else, on a
     * new cluster, this machine's own ({@code makeOwn} makes any that is missing) put there. Runs once
     * this agent leads, before anything reads the files; its write is fenced as every write of the
     * leader's.
     *
     * @param where      where the sealed secrets are kept, for errors ({@code etcd key /slurmlet/_secrets (…)})
     * @param stateHeld  whether the store already holds a cluster's state: then its secrets are taken or nothing is,
     *                   never this machine's put there (they may be a CA of its own, made at an earlier start, and a
     *                   new CA, munge key and admin token would cut off every joined machine)
     */
    void sync(EtcdStore store, String where, boolean stateHeld, IoAction makeOwn) throws IOException {
        var sealed = store.reserved(KEY);
        if (sealed.isPresent()) {
            Map<String, byte[]> held = seal.open(sealed.get(), where);
            for (Map.Entry<String, Path> file : files.entrySet()) {
                byte[] value = held.get(file.getKey());
                if (value == null) {
                    throw new IOException(
                            "the cluster's secrets in %s lack %s: they were written by another program; restore them from a backup"
                                    .formatted(where, file.getKey()));
                }
                take(file.getKey(), file.getValue(), value);
            }
            for (Map.Entry<String, Path> file : optional.entrySet()) {
                byte[] value = held.get(file.getKey());
                if (value != null) {
                    take(file.getKey(), file.getValue(), value);
                } else if (Files.deleteIfExists(file.getValue())) {
                    LOG.infof(
                            "removed %s: the cluster's secrets in %s hold no %s, and this one was not the cluster's",
                            file.getValue(), where, file.getKey());
                }
            }
            return;
        }
        if (stateHeld) {
            // Moved there by a store-move that left the secrets in its folder, or _secrets lost: whatever this machine
            // holds may be another CA (one it made at an earlier start), and a new CA and munge key cut off every
            // machine.
            throw new IOException(
                    ("the store holds a cluster's state but not its secrets (%s), and this leader does not put its own "
                                    + "there: run 'slurmlet-agent store-move' again on the machine the state was moved from (with the same "
                                    + "slurmlet.leader.store.etcd.secrets-key-file; it puts that folder's CA, munge key and admin token there, "
                                    + "sealed), or restore %s from a backup of etcd")
                            .formatted(where, KEY));
        }
        makeOwn.run();
        Map<String, byte[]> own = new LinkedHashMap<>();
        for (Map.Entry<String, Path> file : files.entrySet()) {
            own.put(file.getKey(), Files.readAllBytes(file.getValue()));
        }
        for (Map.Entry<String, Path> file : optional.entrySet()) {
            if (Files.isRegularFile(file.getValue())) {
                own.put(file.getKey(), Files.readAllBytes(file.getValue()));
            }
        }
        if (!store.createReserved(KEY, seal.seal(own, where))) {
            throw new IOException(
                    "the cluster's secrets appeared in %s while this leader was putting its own there: it starts again to take them"
                            .formatted(where));
        }
        LOG.infof(
                "put this leader's CA, munge key and admin token into %s, sealed with the key file (every leader after it takes them)",
                where);
    }

    /**
     * Puts a new munge key and its rotation ({@code munge-rotation.json}'s bytes) into the cluster's
     * secrets in {@code store}, in place of the key they hold, in one write that is made only if
     * nothing else changed them since they were read and only while this agent leads (the store's
     * fence): what a leader on etcd does before it writes the rotation into its own folder, so that a
     * leader elected after it takes the same key, rotation number and moment. Durable when it
     * returns; on an error nothing was changed.
     */
    void putMungeRotation(EtcdStore store, byte[] key, byte[] rotation) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put(SealedSecrets.MUNGE_KEY_FILE, key);
        files.put(SealedSecrets.MUNGE_ROTATION_FILE, rotation);
        putSealed(store, files, "this rotation");
    }

    /**
     * Puts Slurm's keys ({@code slurm-keys.json}'s bytes, {@link SlurmKeys}) into the cluster's secrets in
     * {@code store}, in place of any they hold, in one write that is made only if nothing else changed
     * them since they were read and only while this agent leads (the store's fence): what a leader on
     * etcd does before it writes the file into its own folder, so that a leader elected after it takes
     * the same keys. Durable when it returns; on an error nothing was changed.
     */
    void putSlurmKeys(EtcdStore store, byte[] json) throws IOException {
        putSealed(store, Map.of(SealedSecrets.SLURM_KEYS_FILE, json), "this write of Slurm's keys");
    }

    /** {@code files} put into the cluster's sealed secrets in place of those they hold, the others kept: one fenced write. */
    private void putSealed(EtcdStore store, Map<String, byte[]> files, String what) throws IOException {
        String where = store.where(KEY);
        for (int tries = 1; ; tries++) {
            var sealed = store.reservedVersioned(KEY)
                    .orElseThrow(() -> new IOException(
                            ("the cluster's secrets are not in %s, where this leader took them from when it was elected: "
                                            + "restore %s from a backup of etcd; nothing was changed")
                                    .formatted(where, KEY)));
            Map<String, byte[]> held = new LinkedHashMap<>(seal.open(sealed.value(), where));
            held.putAll(files);
            if (store.replaceReserved(KEY, sealed.version(), seal.seal(held, where))) {
                return;
            }
            if (tries == 3) {
                throw new IOException(
                        "the cluster's secrets in %s changed under %s 3 times (is another program writing them?): nothing was changed"
                                .formatted(where, what));
            }
        }
    }

    /**
     * The cluster's secrets as etcd holds them, opened, nothing written: what a standby needs to
     * hand an admin's request to the leader (its CA to trust, its admin token). Empty until the first
     * leader put them there.
     */
    Optional<Map<String, byte[]>> peek(EtcdStore store, String where) throws IOException {
        var sealed = store.reserved(KEY);
        return sealed.isPresent() ? Optional.of(seal.open(sealed.get(), where)) : Optional.empty();
    }

    /** Writes one secret where it differs: a CA taken from the cluster also retires the leader certificate the old one signed. */
    private static void take(String name, Path file, byte[] value) throws IOException {
        byte[] now;
        try {
            now = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            now = null;
        }
        if (Arrays.equals(now, value)) {
            return;
        }
        AtomicFile.ensurePrivateDirectory(file.toAbsolutePath().getParent());
        if (name.startsWith("ca.")) {
            Files.deleteIfExists(file.resolveSibling("leader.crt"));
            Files.deleteIfExists(file.resolveSibling("leader.key"));
        }
        AtomicFile.write(file, value, readOnly(name) ? PosixFilePermissions.fromString("r--------") : PRIVATE);
        LOG.infof(
                now == null
                        ? "took the cluster's %s from the store into %s"
                        : "replaced %s in %s with the cluster's, from the store",
                name,
                file);
    }

    /** Whether the file of secret {@code name} is 0400, as its maker writes it: the munge key's, and Slurm's keys. */
    private static boolean readOnly(String name) {
        return name.startsWith("munge") || name.equals(SealedSecrets.SLURM_KEYS_FILE);
    }

    /** An action on files. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }
}
