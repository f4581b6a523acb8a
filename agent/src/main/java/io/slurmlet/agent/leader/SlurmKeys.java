package io.slurmlet.agent.leader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slurmlet.agent.store.SealedSecrets;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.plan.SlurmAuthKeys;
import io.slurmlet.model.plan.SlurmJwks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The keys of Slurm's own authentication ({@code auth/slurm}, {@code cred/slurm}) on the leader,
 * which every Slurm machine's {@code slurm.jwks} holds: {@value #FILE} in the state directory (0400),
 * made at the first start with one key, {@value #FIRST_KID}, generation 1. It holds the keys
 * ({@link SlurmJwks#text()}), their generation, the number of the next kid the leader makes (kids
 * {@code slurmlet-<n>}, never made twice) and when this generation was made.
 *
 * <p>The first keys are durable for the whole cluster before this leader's own file is written:
 * with etcd, they are first put into the cluster's sealed secrets ({@link Keeper}), so that every
 * leader elected after this one takes the same keys. Neither a key nor the file's text is ever
 * logged or put into an error.
 */
public final class SlurmKeys {

    public static final String FILE = SealedSecrets.SLURM_KEYS_FILE;
    /** The kid of a cluster's first key. */
    public static final String FIRST_KID = "slurmlet-1";

    private static final Logger LOG = Logger.getLogger(SlurmKeys.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("generation", "next_kid", "jwks", "made");
    private static final Pattern MADE_KID = Pattern.compile("slurmlet-([0-9]{1,18})");

    /**
     * Where the keys are made durable for the whole cluster before this leader's own file is
     * written: nothing more with the file store (its folder is the cluster's state); with etcd, the
     * cluster's sealed secrets ({@link LeaderSecrets#putSlurmKeys}), which every next leader takes.
     */
    @FunctionalInterface
    public interface Keeper {
        Keeper FOLDER = bytes -> {};

        /** Keeps {@code slurm-keys.json}'s bytes; on an error nothing was kept. */
        void keep(byte[] slurmKeysJson) throws IOException;
    }

    private final SlurmAuthKeys current;

    private SlurmKeys(SlurmAuthKeys current) {
        this.current = current;
    }

    /** The keys of {@code stateDir}, made at the first start: the file store's. */
    public static SlurmKeys open(Path stateDir, Clock clock) throws IOException {
        return open(stateDir, clock, Keeper.FOLDER);
    }

    /**
     * The keys of a leader whose secrets are kept in etcd, sealed, beside other leaders'
     * ({@link LeaderSecrets}): read from {@code stateDir}, where the election took them; on a
     * cluster that holds none yet, made and put into etcd first through {@code keeper}, so that the
     * next leader's election takes the same.
     */
    public static SlurmKeys open(Path stateDir, Clock clock, Keeper keeper) throws IOException {
        Path file = stateDir.resolve(FILE);
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new SlurmKeys(makeFirst(stateDir, clock, keeper));
        }
        return new SlurmKeys(read(file, text));
    }

    /** The keys every plan carries now, with their generation. */
    public SlurmAuthKeys current() {
        return current;
    }

    private static SlurmAuthKeys makeFirst(Path stateDir, Clock clock, Keeper keeper) throws IOException {
        SlurmAuthKeys first = new SlurmAuthKeys(1, SlurmJwks.first(FIRST_KID));
        ObjectNode j = JSON.createObjectNode();
        j.put("generation", first.generation());
        j.put("next_kid", 2);
        j.put("jwks", first.jwks().text());
        j.put("made", clock.instant().toString());
        byte[] json = JSON.writeValueAsBytes(j);
        keeper.keep(json);
        try {
            AtomicFile.ensurePrivateDirectory(stateDir);
            AtomicFile.write(stateDir.resolve(FILE), json, PosixFilePermissions.fromString("r--------"));
        } catch (IOException e) {
            if (keeper == Keeper.FOLDER) {
                throw e;
            }
            throw new IOException(
                    ("the cluster's first Slurm keys are kept in the cluster's secrets, and this leader could not write "
                                    + "them into %s (%s): restart this agent, which takes them from there when elected")
                            .formatted(stateDir, e.getMessage()),
                    e);
        }
        LOG.infof("made the cluster's first Slurm keys (%s, generation 1) in %s", FIRST_KID, stateDir.resolve(FILE));
        return first;
    }

    /** The keys in {@code text}, {@code file}'s, read strictly; an error names the file and what is wrong, never the text. */
    private static SlurmAuthKeys read(Path file, byte[] text) throws IOException {
        String wrong;
        try {
            JsonNode j = JSON.readTree(text);
            wrong = check(j);
            if (wrong == null) {
                Instant.parse(j.get("made").textValue());
                SlurmJwks jwks = SlurmJwks.of(j.get("jwks").textValue());
                wrong = kidsBelow(jwks, j.get("next_kid").longValue());
                if (wrong == null) {
                    return new SlurmAuthKeys(j.get("generation").longValue(), jwks);
                }
            }
        } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
            // Never the text, nor the message: it may quote the text, which holds the keys.
            wrong = e.getClass().getSimpleName();
        }
        throw new IOException(
                "the cluster's Slurm keys in %s are not readable (%s): restore the file from a backup"
                        .formatted(file, wrong),
                null);
    }

    /** Whether every kid the leader made ({@code slurmlet-<n>}) is below {@code next}: null if so, else what is wrong. */
    private static String kidsBelow(SlurmJwks jwks, long next) {
        for (String kid : jwks.kids()) {
            Matcher made = MADE_KID.matcher(kid);
            if (made.matches() && Long.parseLong(made.group(1)) >= next) {
                return "next_kid is not above every slurmlet-<n> kid";
            }
        }
        return null;
    }

    /** What is wrong with the shape of {@code j} (names of fields only, never a value), or null. */
    private static String check(JsonNode j) {
        if (j == null || !j.isObject()) {
            return "not a JSON object";
        }
        Set<String> names = new HashSet<>();
        for (Iterator<String> it = j.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        if (!names.equals(FIELDS)) {
            return "its fields are not generation, next_kid, jwks and made";
        }
        if (!j.get("generation").isIntegralNumber()
                || !j.get("generation").canConvertToLong()
                || j.get("generation").longValue() < 1) {
            return "generation is not a whole number of 1 or more";
        }
        if (!j.get("next_kid").isIntegralNumber()
                || !j.get("next_kid").canConvertToLong()
                || j.get("next_kid").longValue() < 2) {
            return "next_kid is not a whole number of 2 or more";
        }
        if (!j.get("jwks").isTextual() || !j.get("made").isTextual()) {
            return "jwks or made is not a string";
        }
        return null;
    }
}
