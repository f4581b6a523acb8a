package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The keys of Slurm's own authentication ({@code AuthType=auth/slurm}, {@code CredType=cred/slurm};
 * Slurm 24.05 and later), as {@code /etc/slurm/slurm.jwks} holds them on every Slurm machine: each
 * by its kid, every one accepted, one of them (the default) signing. A rotation takes three steps,
 * each reaching every daemon before the next: a new key added beside the one that signs, then made
 * the one that signs, then the old one dropped (system-tests/slurm/FINDINGS.md, "auth/slurm and
 * slurm.jwks": replaced in one step, the slurmds never load the new file). The file is checked as
 * Slurm checks it when a daemon starts or re-executes, since one it refuses fails that daemon's
 * reconfigure and leaves it on its old keys. No key appears in a log, a status or an error:
 * {@link #toString()} names the kids only.
 */
public final class SlurmJwks {

    /** What Slurm takes at least. */
    public static final int MIN_BYTES = 16;
    /** What slurmlet makes: HS256's own size. */
    public static final int BYTES = 32;
    /** A kid slurmlet accepts: nothing JSON would escape, nothing a log line would break on. */
    static final Pattern KID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One key: its kid and its bytes (a class, not a record: Jackson never maps it, {@link #text()} writes it). */
    private static final class Key {
        private final String kid;
        private final byte[] bytes;

        Key(String kid, byte[] bytes) {
            this.kid = kid;
            this.bytes = bytes.clone();
        }

        String kid() {
            return kid;
        }

        byte[] bytes() {
            return bytes;
        }
    }

    /** In the file's order. */
    private final List<Key> keys;

    private final String signing;

    private SlurmJwks(List<Key> keys, String signing) {
        Set<String> kids = new HashSet<>();
        for (Key k : keys) {
            if (!KID.matcher(k.kid()).matches()) {
                throw new IllegalArgumentException(
                        "a slurm.jwks kid is 1 to 64 letters, digits, '.', '_' or '-', not \"" + shown(k.kid()) + "\"");
            }
            if (!kids.add(k.kid())) {
                throw new IllegalArgumentException(
                        "slurm.jwks holds kid " + k.kid() + " twice: Slurm refuses the file");
            }
            if (k.bytes().length < MIN_BYTES) {
                throw new IllegalArgumentException("slurm.jwks key %s has %d bytes: Slurm wants at least %d"
                        .formatted(k.kid(), k.bytes().length, MIN_BYTES));
            }
        }
        if (!kids.contains(signing)) {
            throw new IllegalArgumentException(
                    "slurm.jwks has no key " + shown(signing) + " to sign with: name one of " + kids);
        }
        this.keys = List.copyOf(keys);
        this.signing = signing;
    }

    /** A cluster's first keys: one new key, {@code kid}, which signs. */
    public static SlurmJwks first(String kid) {
        return new SlurmJwks(List.of(new Key(kid, random())), kid);
    }

    /** The first step of a rotation: a new key, {@code kid}, beside these; accepted everywhere once loaded, signing nothing yet. */
    public SlurmJwks withNewKey(String kid) {
        List<Key> more = new ArrayList<>(keys);
        more.add(new Key(kid, random()));
        return new SlurmJwks(more, signing);
    }

    /** The second: {@code kid}, already held, signs from now on; the others are still accepted. */
    public SlurmJwks signingWith(String kid) {
        return new SlurmJwks(keys, kid);
    }

    /** The third: {@code kid} dropped; it may not be the one that signs. */
    public SlurmJwks without(String kid) {
        if (kid.equals(signing)) {
            throw new IllegalArgumentException(
                    "slurm.jwks key " + kid + " signs: make another sign, everywhere, before dropping it");
        }
        if (keys.stream().noneMatch(k -> k.kid().equals(kid))) {
            throw new IllegalArgumentException("slurm.jwks holds no key " + shown(kid));
        }
        return new SlurmJwks(keys.stream().filter(k -> !k.kid().equals(kid)).toList(), signing);
    }

    /** The kids, in the file's order. */
    public List<String> kids() {
        return keys.stream().map(Key::kid).toList();
    }

    /** The kid of the key that signs. */
    public String signing() {
        return signing;
    }

    /**
     * The file as Slurm reads it: {@code {"keys":[{"kid":…,"kty":"oct","alg":"HS256","k":…,"use":"default"},…]}},
     * the key that signs marked {@code "use":"default"}, each key in base64. Written 0600, the SlurmUser's.
     */
    @JsonValue
    public String text() {
        ObjectNode file = JSON.createObjectNode();
        ArrayNode list = file.putArray("keys");
        for (Key k : keys) {
            ObjectNode key = list.addObject();
            key.put("kid", k.kid());
            key.put("kty", "oct");
            key.put("alg", "HS256");
            key.put("k", Base64.getEncoder().encodeToString(k.bytes()));
            if (k.kid().equals(signing)) {
                key.put("use", "default");
            }
        }
        return file.toString() + "\n";
    }

    /**
     * The keys in {@code text}, as {@link #text()} writes them and Slurm reads them: every key
     * {@code "kty":"oct"} and {@code "alg":"HS256"}, a unique kid, at least {@value #MIN_BYTES} bytes,
     * exactly one {@code "use":"default"}, and nothing else.
     *
     * @throws IllegalArgumentException naming what is wrong (a kid, never a key)
     */
    @JsonCreator
    public static SlurmJwks of(String text) {
        JsonNode file;
        try {
            file = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("slurm.jwks is not JSON", null);
        }
        if (file == null
                || !file.isObject()
                || file.size() != 1
                || !file.path("keys").isArray()
                || file.path("keys").isEmpty()) {
            throw new IllegalArgumentException("slurm.jwks is an object whose one field, keys, lists one key or more");
        }
        List<Key> keys = new ArrayList<>();
        String signing = null;
        for (JsonNode key : file.path("keys")) {
            String kid = key.path("kid").asText("");
            for (Iterator<String> names = key.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!Set.of("kid", "kty", "alg", "k", "use").contains(name)) {
                    throw new IllegalArgumentException(
                            "slurm.jwks key " + shown(kid) + " has a field slurmlet does not write: " + shown(name));
                }
            }
            if (!key.path("kty").asText("").equals("oct")
                    || !key.path("alg").asText("").equals("HS256")) {
                throw new IllegalArgumentException(
                        "slurm.jwks key " + shown(kid) + " is not kty oct and alg HS256: Slurm takes no other");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(key.path("k").asText(""));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("slurm.jwks key " + shown(kid) + " is not base64", null);
            }
            if (key.has("use")) {
                if (!key.path("use").asText("").equals("default") || signing != null) {
                    throw new IllegalArgumentException(
                            "slurm.jwks marks more than one key, or a key other than \"default\", for use: Slurm refuses it");
                }
                signing = kid;
            }
            keys.add(new Key(kid, bytes));
        }
        if (signing == null) {
            throw new IllegalArgumentException(
                    "slurm.jwks marks no key \"use\": \"default\": slurmlet names the one that signs");
        }
        return new SlurmJwks(keys, signing);
    }

    private static byte[] random() {
        byte[] key = new byte[BYTES];
        new SecureRandom().nextBytes(key);
        return key;
    }

    /** What an error may say of a name that came from outside: at most 64 of its characters, printable ones. */
    private static String shown(String said) {
        String printable = said.codePoints()
                .limit(64)
                .map(c -> c >= 0x20 && c < 0x7f ? c : '?')
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                .toString();
        return printable.isEmpty() ? "(none)" : printable;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SlurmJwks other) || !signing.equals(other.signing) || keys.size() != other.keys.size()) {
            return false;
        }
        for (int i = 0; i < keys.size(); i++) {
            if (!keys.get(i).kid().equals(other.keys.get(i).kid())
                    || !MessageDigest.isEqual(
                            keys.get(i).bytes(), other.keys.get(i).bytes())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return kids().hashCode() * 31 + signing.hashCode();
    }

    @Override
    public String toString() {
        return "SlurmJwks[kids " + kids() + ", " + signing + " signs, keys not shown]";
    }

    /** The file's bytes, for the one place that writes it. */
    public byte[] bytes() {
        return text().getBytes(StandardCharsets.UTF_8);
    }
}
