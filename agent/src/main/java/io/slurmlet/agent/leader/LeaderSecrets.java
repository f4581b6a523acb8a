package io.slurmlet.agent.leader;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slurmlet.agent.store.EtcdStore;
import io.slurmlet.agent.system.AtomicFile;
import org.jboss.logging.Logger;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The cluster's secrets, which every leader must hold the same of: the CA's certificate and key (every
 * agent pins the CA), the munge key (a new one would stop every machine's munge until all had it) and
 * the admin token (ctl's). With etcd they are kept there, sealed with AES-256-GCM under a key that is
 * not in etcd: the site copies one key file to every leader-eligible machine, as it copies their etcd
 * client certificates, so that neither etcd's data nor a backup of it gives away the CA or the munge
 * key. The first leader puts its own there (made at its first start); every leader after it takes
 * them into its state folder before it opens anything that reads them.
 */
public final class LeaderSecrets {

    /** The store's own key that holds them, sealed. */
    static final String KEY = "_secrets";
    private static final Logger LOG = Logger.getLogger(LeaderSecrets.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CIPHER = "AES/GCM/NoPadding";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    private final byte[] key;
    private final Map<String, Path> files;

    /**
     * @param key   the 32 bytes of the site's key file
     * @param files each secret's name (as kept in etcd) and the file of this machine's that holds it
     */
    LeaderSecrets(byte[] key, Map<String, Path> files) {
        this.key = key.clone();
        this.files = Map.copyOf(files);
    }

    /** The secrets in {@code stateDir} (the CA in pki/, munge.key) and the admin token's file. */
    static Map<String, Path> files(Path stateDir, Path adminToken) {
        Map<String, Path> files = new LinkedHashMap<>();
        files.put("ca.crt", stateDir.resolve(io.slurmlet.agent.trust.Pki.DIR).resolve("ca.crt"));
        files.put("ca.key", stateDir.resolve(io.slurmlet.agent.trust.Pki.DIR).resolve("ca.key"));
        files.put("munge.key", stateDir.resolve(PlanPublisher.MUNGE_KEY_FILE));
        files.put("admin.token", adminToken);
        return files;
    }

    /**
     * Reads the site's key file: 64 hex digits (32 bytes, as {@code openssl rand -hex 32} writes),
     * readable by its owner only. Anything else stops the leader with the file, what is wrong, and
     * the fix.
     */
    static byte[] readKeyFile(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            throw new IOException(("slurmlet.leader.store.etcd.secrets-key-file is %s, which does not exist: make it once with "
                    + "'openssl rand -hex 32 > %s; chmod 600 %s' and copy the same file to every leader-eligible machine").formatted(file, file, file));
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (mode.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
            throw new IOException("slurmlet.leader.store.etcd.secrets-key-file %s is readable by others (%s): chmod 600 %s"
                    .formatted(file, PosixFilePermissions.toString(mode), file));
        }
        if (!text.matches("[0-9a-fA-F]{64}")) {
            throw new IOException(("slurmlet.leader.store.etcd.secrets-key-file %s does not hold 64 hex digits (it holds %d characters): "
                    + "make it with 'openssl rand -hex 32 > %s' (the same file on every leader-eligible machine)").formatted(file, text.length(), file));
        }
        return HexFormat.of().parseHex(text);
    }

    /**
     * Makes this machine's secret files the cluster's: taken from etcd where it holds them, else this
     * machine's own ({@code makeOwn} makes any that is missing) put there. Runs once this agent leads,
     * before anything reads the files; its write is fenced as every write of the leader's.
     *
     * @param where      where the sealed secrets are kept, for errors ({@code etcd key /slurmlet/_secrets (…)})
     * @param stateHeld  whether the store already holds a cluster's state (moved there by {@code store-move}): then
     *                   only a machine that holds all its secrets (the one it was moved from) may put them there; a
     *                   new CA, munge key and admin token would cut off every joined machine
     */
    void sync(EtcdStore store, String where, boolean stateHeld, IoAction makeOwn) throws IOException {
        var sealed = store.reserved(KEY);
        if (sealed.isPresent()) {
            Map<String, byte[]> held = open(sealed.get(), where);
            for (Map.Entry<String, Path> file : files.entrySet()) {
                byte[] value = held.get(file.getKey());
                if (value == null) {
                    throw new IOException("the cluster's secrets in %s lack %s: they were written by another program; restore them from a backup"
                            .formatted(where, file.getKey()));
                }
                take(file.getKey(), file.getValue(), value);
            }
            return;
        }
        if (stateHeld) {
            List<String> missing = files.entrySet().stream().filter(f -> !Files.exists(f.getValue())).map(f -> f.getValue().toString()).toList();
            if (!missing.isEmpty()) {
                throw new IOException(("the store holds a cluster's state but not its secrets (%s), and this machine lacks %s: start the "
                        + "leader-eligible agent on the machine the state was moved from first (its folder holds the cluster's CA, munge "
                        + "key and admin token), or copy those files here; a new CA and munge key would cut off every joined machine")
                        .formatted(where, String.join(", ", missing)));
            }
        } else {
            makeOwn.run();
        }
        Map<String, byte[]> own = new LinkedHashMap<>();
        for (Map.Entry<String, Path> file : files.entrySet()) {
            own.put(file.getKey(), Files.readAllBytes(file.getValue()));
        }
        if (!store.createReserved(KEY, seal(own, where))) {
            throw new IOException("the cluster's secrets appeared in %s while this leader was putting its own there: it starts again to take them"
                    .formatted(where));
        }
        LOG.infof("put this leader's CA, munge key and admin token into %s, sealed with the key file (every leader after it takes them)", where);
    }

    /**
     * The cluster's secrets as etcd holds them, opened, nothing written: what a standby needs to
     * hand an admin's request to the leader (its CA to trust, its admin token). Empty until the first
     * leader put them there.
     */
    Optional<Map<String, byte[]>> peek(EtcdStore store, String where) throws IOException {
        var sealed = store.reserved(KEY);
        return sealed.isPresent() ? Optional.of(open(sealed.get(), where)) : Optional.empty();
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
        AtomicFile.write(file, value, name.equals("munge.key") ? PosixFilePermissions.fromString("r--------") : PRIVATE);
        LOG.infof(now == null ? "took the cluster's %s from the store into %s" : "replaced %s in %s with the cluster's, from the store",
                name, file);
    }

    byte[] seal(Map<String, byte[]> secrets, String where) throws IOException {
        Map<String, String> encoded = new LinkedHashMap<>();
        secrets.forEach((name, value) -> encoded.put(name, Base64.getEncoder().encodeToString(value)));
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            new SecureRandom().nextBytes(nonce);
            Cipher c = Cipher.getInstance(CIPHER);
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(KEY.getBytes(StandardCharsets.US_ASCII));
            byte[] sealed = c.doFinal(JSON.writeValueAsBytes(encoded));
            return JSON.writeValueAsBytes(Map.of("v", 1, "nonce", Base64.getEncoder().encodeToString(nonce),
                    "sealed", Base64.getEncoder().encodeToString(sealed)));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot seal the cluster's secrets for " + where + ": " + e.getMessage(), e);
        }
    }

    Map<String, byte[]> open(byte[] blob, String where) throws IOException {
        try {
            Map<String, Object> outer = JSON.readValue(blob, new TypeReference<Map<String, Object>>() { });
            if (!Integer.valueOf(1).equals(outer.get("v"))) {
                throw new IOException("the cluster's secrets in %s are of another format (%s): a newer slurmlet wrote them; upgrade this agent"
                        .formatted(where, outer.get("v")));
            }
            Cipher c = Cipher.getInstance(CIPHER);
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"),
                    new GCMParameterSpec(TAG_BITS, Base64.getDecoder().decode((String) outer.get("nonce"))));
            c.updateAAD(KEY.getBytes(StandardCharsets.US_ASCII));
            byte[] plain = c.doFinal(Base64.getDecoder().decode((String) outer.get("sealed")));
            Map<String, String> encoded = JSON.readValue(plain, new TypeReference<Map<String, String>>() { });
            Map<String, byte[]> secrets = new LinkedHashMap<>();
            encoded.forEach((name, value) -> secrets.put(name, Base64.getDecoder().decode(value)));
            return secrets;
        } catch (AEADBadTagException e) {
            throw new IOException(("the key file does not open the cluster's secrets in %s: this machine's "
                    + "slurmlet.leader.store.etcd.secrets-key-file differs from the one the first leader used; copy that file here").formatted(where));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IOException("cannot read the cluster's secrets in %s (%s): restore them from a backup".formatted(where, e.getMessage()), e);
        }
    }

    /** An action on files. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }
}
