package io.slurmlet.agent.store;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slurmlet.agent.trust.Pki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster's secrets as etcd keeps them beside the leader's state, under the store's own key
 * {@value #KEY}: the CA's certificate and key, the munge key and the admin token, sealed with
 * AES-256-GCM under the site's key file ({@code slurmlet.leader.store.etcd.secrets-key-file}), which
 * is not in etcd. Neither etcd's data nor a backup of it gives them away.
 *
 * <p>Here, beside the store, because two sides seal them the same way and neither may use the
 * other's code: {@link StoreMove} puts the moved folder's secrets there, and the leader
 * ({@code leader.LeaderSecrets}) takes them, or on a new cluster puts its own there.
 */
public final class SealedSecrets {

    /** The store's own key that holds them, sealed. */
    public static final String KEY = "_secrets";
    /** The munge key's file in the state folder. */
    public static final String MUNGE_KEY_FILE = "munge.key";
    /**
     * The munge key's last rotation in the state folder ({@code leader.MungeKeys}): kept sealed beside
     * the key once the cluster rotated it, so that every next leader keeps the rotation's number and
     * moment; absent before the first rotation.
     */
    public static final String MUNGE_ROTATION_FILE = "munge-rotation.json";
    /**
     * The keys of Slurm's own authentication in the state folder ({@code leader.SlurmKeys}): kept
     * sealed once a leader made them, so that every next leader holds the same; optional, since the
     * sealed secrets of a cluster older than them lack it (its next leader makes them and puts them there).
     */
    public static final String SLURM_KEYS_FILE = "slurm-keys.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CIPHER = "AES/GCM/NoPadding";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final byte[] key;

    /** @param key the 32 bytes of the site's key file */
    public SealedSecrets(byte[] key) {
        this.key = key.clone();
    }

    /** Seals with the site's key file ({@link #readKeyFile}). */
    public static SealedSecrets withKeyFile(Path file) throws IOException {
        return new SealedSecrets(readKeyFile(file));
    }

    /**
     * Each secret's name (as kept sealed) and its file on a leader: the CA in {@code pki/} and
     * {@code munge.key} in {@code stateDir}, and the admin token's file.
     */
    public static Map<String, Path> files(Path stateDir, Path adminToken) {
        Map<String, Path> files = new LinkedHashMap<>();
        files.put("ca.crt", stateDir.resolve(Pki.DIR).resolve("ca.crt"));
        files.put("ca.key", stateDir.resolve(Pki.DIR).resolve("ca.key"));
        files.put("munge.key", stateDir.resolve(MUNGE_KEY_FILE));
        files.put("admin.token", adminToken);
        return files;
    }

    /**
     * The secrets kept only once they exist, by name, and their files: the munge key's last rotation,
     * and Slurm's keys.
     */
    public static Map<String, Path> optionalFiles(Path stateDir) {
        Map<String, Path> files = new LinkedHashMap<>();
        files.put(MUNGE_ROTATION_FILE, stateDir.resolve(MUNGE_ROTATION_FILE));
        files.put(SLURM_KEYS_FILE, stateDir.resolve(SLURM_KEYS_FILE));
        return Collections.unmodifiableMap(files);
    }

    /** The optional secrets ({@link #optionalFiles}) that {@code stateDir} holds, by name, read. */
    public static Map<String, byte[]> readOptional(Path stateDir) throws IOException {
        Map<String, byte[]> held = new LinkedHashMap<>();
        for (Map.Entry<String, Path> file : optionalFiles(stateDir).entrySet()) {
            if (Files.isRegularFile(file.getValue())) {
                held.put(file.getKey(), Files.readAllBytes(file.getValue()));
            }
        }
        return held;
    }

    /**
     * Reads the site's key file: 64 hex digits (32 bytes, as {@code openssl rand -hex 32} writes),
     * readable by its owner only. Anything else is refused with the setting, the file, what is wrong
     * and the fix; what the file holds is never shown.
     */
    public static byte[] readKeyFile(Path file) throws IOException {
        String text;
        try {
            // Each byte a character: a binary key file (openssl rand 32) is told apart by its length, never shown.
            text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).strip();
        } catch (NoSuchFileException e) {
            throw new IOException(
                    ("slurmlet.leader.store.etcd.secrets-key-file is %s, which does not exist: make it once with "
                                    + "'openssl rand -hex 32 > %s; chmod 600 %s' and copy the same file to every leader-eligible machine")
                            .formatted(file, file, file));
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (mode.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
            throw new IOException(
                    "slurmlet.leader.store.etcd.secrets-key-file %s is readable by others (%s): chmod 600 %s"
                            .formatted(file, PosixFilePermissions.toString(mode), file));
        }
        if (!text.matches("[0-9a-fA-F]{64}")) {
            throw new IOException(
                    ("slurmlet.leader.store.etcd.secrets-key-file %s does not hold 64 hex digits (it holds %d characters): "
                                    + "make it with 'openssl rand -hex 32 > %s' (the same file on every leader-eligible machine)")
                            .formatted(file, text.length(), file));
        }
        return HexFormat.of().parseHex(text);
    }

    /** {@code secrets} by name, sealed: what {@link EtcdStore#createReserved} puts under {@value #KEY}. */
    public byte[] seal(Map<String, byte[]> secrets, String where) throws IOException {
        Map<String, String> encoded = new LinkedHashMap<>();
        secrets.forEach((name, value) -> encoded.put(name, Base64.getEncoder().encodeToString(value)));
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            new SecureRandom().nextBytes(nonce);
            Cipher c = Cipher.getInstance(CIPHER);
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(KEY.getBytes(StandardCharsets.US_ASCII));
            byte[] sealed = c.doFinal(JSON.writeValueAsBytes(encoded));
            return JSON.writeValueAsBytes(Map.of(
                    "v",
                    1,
                    "nonce",
                    Base64.getEncoder().encodeToString(nonce),
                    "sealed",
                    Base64.getEncoder().encodeToString(sealed)));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot seal the cluster's secrets for " + where + ": " + e.getMessage(), e);
        }
    }

    /** The secrets by name that {@code blob} (read from {@code where}) holds, opened with this key. */
    public Map<String, byte[]> open(byte[] blob, String where) throws IOException {
        try {
            Map<String, Object> outer = JSON.readValue(blob, new TypeReference<Map<String, Object>>() {});
            if (!Integer.valueOf(1).equals(outer.get("v"))) {
                throw new IOException(
                        "the cluster's secrets in %s are of another format (%s): a newer slurmlet wrote them; upgrade this agent"
                                .formatted(where, outer.get("v")));
            }
            Cipher c = Cipher.getInstance(CIPHER);
            c.init(
                    Cipher.DECRYPT_MODE,
                    new SecretKeySpec(key, "AES"),
                    new GCMParameterSpec(TAG_BITS, Base64.getDecoder().decode((String) outer.get("nonce"))));
            c.updateAAD(KEY.getBytes(StandardCharsets.US_ASCII));
            byte[] plain = c.doFinal(Base64.getDecoder().decode((String) outer.get("sealed")));
            Map<String, String> encoded = JSON.readValue(plain, new TypeReference<Map<String, String>>() {});
            Map<String, byte[]> secrets = new LinkedHashMap<>();
            encoded.forEach(
                    (name, value) -> secrets.put(name, Base64.getDecoder().decode(value)));
            return secrets;
        } catch (AEADBadTagException e) {
            throw new IOException(("the key file does not open the cluster's secrets in %s: this machine's "
                            + "slurmlet.leader.store.etcd.secrets-key-file differs from the one the first leader used; copy that file here")
                    .formatted(where));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IOException(
                    "cannot read the cluster's secrets in %s (%s): restore them from a backup"
                            .formatted(where, e.getMessage()),
                    e);
        }
    }
}
