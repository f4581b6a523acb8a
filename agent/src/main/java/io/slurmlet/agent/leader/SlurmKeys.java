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
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The keys of Slurm's own authentication ({@code auth/slurm}, {@code cred/slurm}) on the leader,
 * which every Slurm machine's {@code slurm.jwks} holds: {@value #FILE} in the state directory (0400),
 * made at the first start with one key, {@value #FIRST_KID}, generation 1. It holds the keys
 * ({@link SlurmJwks#text()}), their generation, the number of the next kid the leader makes (kids
 * {@code slurmlet-<n>}, never made twice) and where their rotation is ({@link KeyPhases.State}: its
 * phase and since when, since when every daemon loaded the switch, its number, when and by whom it
 * was asked). The first keys' file has the shape of leaders before rotations (generation, next_kid,
 * jwks, made), read as never rotated.
 *
 * <p>Every change is durable for the whole cluster before this leader's own file is written, and
 * that before it is held here: with etcd, it is first put into the cluster's sealed secrets
 * ({@link Keeper}), so that every leader elected after this one takes the same keys and goes on
 * with the rotation where it was. Neither a key nor the file's text is ever logged or put into an
 * error.
 */
public final class SlurmKeys {

    public static final String FILE = SealedSecrets.SLURM_KEYS_FILE;
    /** The kid of a cluster's first key. */
    public static final String FIRST_KID = "slurmlet-1";

    private static final Logger LOG = Logger.getLogger(SlurmKeys.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The first keys' file, as leaders before rotations wrote it too. */
    private static final Set<String> FIRST_FIELDS = Set.of("generation", "next_kid", "jwks", "made");
    /** The file once the keys were rotated. */
    private static final Set<String> FIELDS = Set.of(
            "generation", "next_kid", "jwks", "phase", "since", "loaded_everywhere", "rotation", "requested", "by");

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

    private final Path stateDir;
    private final Clock clock;
    private final Keeper keeper;
    private KeyPhases.State state;

    private SlurmKeys(Path stateDir, Clock clock, Keeper keeper, KeyPhases.State state) {
        this.stateDir = stateDir;
        this.clock = clock;
        this.keeper = keeper;
        this.state = state;
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
            return new SlurmKeys(stateDir, clock, keeper, makeFirst(stateDir, clock, keeper));
        }
        return new SlurmKeys(stateDir, clock, keeper, read(file, text));
    }

    /** The keys every plan carries now, with their generation. */
    public synchronized SlurmAuthKeys current() {
        return state.keys();
    }

    /** The keys and where their rotation is. */
    public synchronized KeyPhases.State state() {
        return state;
    }

    /**
     * Begins a rotation ({@link KeyPhases#rotate}): a new key beside the one that signs, a generation
     * further; durable for the whole cluster when it returns.
     *
     * @param by who asked, as the leader's log names callers
     * @throws IllegalStateException while a rotation is under way; nothing was changed
     */
    public synchronized KeyPhases.State rotate(String by) throws IOException {
        KeyPhases.State next = KeyPhases.rotate(state, clock.instant(), by);
        keep(next);
        LOG.infof(
                "Slurm key rotation %d asked by %s: generation %d adds %s beside %s, which still signs",
                next.rotation(),
                by,
                next.generation(),
                next.keys().jwks().kids().get(next.keys().jwks().kids().size() - 1),
                next.keys().jwks().signing());
        return next;
    }

    /**
     * Moves the rotation on to {@code next}, which {@link KeyPhases#next} made from {@link #state()};
     * durable for the whole cluster when it returns.
     *
     * @throws IllegalArgumentException where {@code next} does not follow the state held now (another
     *                                  rotation, an older generation); nothing was changed
     */
    public synchronized void advance(KeyPhases.State next) throws IOException {
        if (next.equals(state)) {
            return;
        }
        if (!follows(state, next)) {
            throw new IllegalArgumentException(
                    "Slurm's keys move from rotation %d, generation %d (%s) only to what follows it, not to rotation %d, generation %d (%s)"
                            .formatted(
                                    state.rotation(),
                                    state.generation(),
                                    state.phase(),
                                    next.rotation(),
                                    next.generation(),
                                    next.phase()));
        }
        keep(next);
        LOG.infof(
                "Slurm key rotation %d: phase %s, generation %d, %s signs, kids %s",
                next.rotation(),
                next.phase(),
                next.generation(),
                next.keys().jwks().signing(),
                next.keys().jwks().kids());
    }

    /**
     * Whether {@code next} is what {@link KeyPhases#next} makes of {@code now}: the same rotation, and
     * the next phase a generation further, or in SWITCHED the same keys with only loaded_everywhere
     * said anew. A state made from one that no longer holds is not.
     */
    static boolean follows(KeyPhases.State now, KeyPhases.State next) {
        if (next.rotation() != now.rotation()
                || next.nextKid() != now.nextKid()
                || !next.requested().equals(now.requested())
                || !next.by().equals(now.by())) {
            return false;
        }
        if (next.generation() == now.generation() + 1) {
            return now.phase() == KeyPhases.Phase.ADDED && next.phase() == KeyPhases.Phase.SWITCHED
                    || now.phase() == KeyPhases.Phase.SWITCHED && next.phase() == KeyPhases.Phase.STEADY;
        }
        return next.generation() == now.generation()
                && now.phase() == KeyPhases.Phase.SWITCHED
                && next.phase() == KeyPhases.Phase.SWITCHED
                && next.keys().equals(now.keys())
                && next.since().equals(now.since());
    }

    /** Keeps {@code next} for the cluster (the keeper), then in this leader's file, then here: on an error, the state held stays. */
    private void keep(KeyPhases.State next) throws IOException {
        byte[] json = JSON.writeValueAsBytes(json(next));
        keeper.keep(json);
        try {
            AtomicFile.ensurePrivateDirectory(stateDir);
            AtomicFile.write(stateDir.resolve(FILE), json, PosixFilePermissions.fromString("r--------"));
        } catch (IOException e) {
            if (keeper == Keeper.FOLDER) {
                throw e;
            }
            throw new IOException(
                    ("generation %d of the cluster's Slurm keys is kept in the cluster's secrets, and this leader could "
                                    + "not write it into %s (%s): restart this agent, which takes it from there when elected")
                            .formatted(next.generation(), stateDir, e.getMessage()),
                    e);
        }
        state = next;
    }

    /** The file's JSON for {@code s}: every field, absent ones null. */
    private static ObjectNode json(KeyPhases.State s) {
        ObjectNode j = JSON.createObjectNode();
        j.put("generation", s.generation());
        j.put("next_kid", s.nextKid());
        j.put("jwks", s.keys().jwks().text());
        j.put("phase", s.phase().name());
        j.put("since", s.since().toString());
        j.put("loaded_everywhere", s.loadedEverywhere().map(Instant::toString).orElse(null));
        j.put("rotation", s.rotation());
        j.put("requested", s.requested().map(Instant::toString).orElse(null));
        j.put("by", s.by());
        return j;
    }

    private static KeyPhases.State makeFirst(Path stateDir, Clock clock, Keeper keeper) throws IOException {
        SlurmAuthKeys first = new SlurmAuthKeys(1, SlurmJwks.first(FIRST_KID));
        Instant made = clock.instant();
        // The first keys keep the shape of leaders before rotations: one of them, a standby, still reads them.
        ObjectNode j = JSON.createObjectNode();
        j.put("generation", first.generation());
        j.put("next_kid", 2);
        j.put("jwks", first.jwks().text());
        j.put("made", made.toString());
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
        return KeyPhases.State.first(first, made, 2);
    }

    /**
     * The state in {@code text}, {@code file}'s, read strictly: the first keys' shape (generation,
     * next_kid, jwks, made: STEADY, never rotated) or a rotation's; an error names the file and what is
     * wrong, never the text.
     */
    private static KeyPhases.State read(Path file, byte[] text) throws IOException {
        String wrong;
        try {
            JsonNode j = JSON.readTree(text);
            wrong = check(j);
            if (wrong == null) {
                SlurmJwks jwks = SlurmJwks.of(j.get("jwks").textValue());
                long nextKid = j.get("next_kid").longValue();
                wrong = kidsBelow(jwks, nextKid);
                if (wrong == null) {
                    SlurmAuthKeys keys = new SlurmAuthKeys(j.get("generation").longValue(), jwks);
                    if (j.has("made")) {
                        return KeyPhases.State.first(
                                keys, Instant.parse(j.get("made").textValue()), nextKid);
                    }
                    return new KeyPhases.State(
                            keys,
                            KeyPhases.Phase.valueOf(j.get("phase").textValue()),
                            Instant.parse(j.get("since").textValue()),
                            instant(j.get("loaded_everywhere")),
                            nextKid,
                            j.get("rotation").longValue(),
                            instant(j.get("requested")),
                            j.get("by").textValue());
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

    private static Optional<Instant> instant(JsonNode j) {
        return j.isNull() ? Optional.empty() : Optional.of(Instant.parse(j.textValue()));
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
        boolean first = names.equals(FIRST_FIELDS);
        if (!first && !names.equals(FIELDS)) {
            return "its fields are not generation, next_kid, jwks and made, nor generation, next_kid, jwks, phase, "
                    + "since, loaded_everywhere, rotation, requested and by";
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
        if (first) {
            return !j.get("jwks").isTextual() || !j.get("made").isTextual() ? "jwks or made is not a string" : null;
        }
        if (!j.get("jwks").isTextual()
                || !j.get("since").isTextual()
                || !j.get("by").isTextual()) {
            return "jwks, since or by is not a string";
        }
        if (!j.get("phase").isTextual()
                || Arrays.stream(KeyPhases.Phase.values())
                        .noneMatch(p -> p.name().equals(j.get("phase").textValue()))) {
            return "phase is not STEADY, ADDED or SWITCHED";
        }
        if (!j.get("rotation").isIntegralNumber()
                || !j.get("rotation").canConvertToLong()
                || j.get("rotation").longValue() < 0) {
            return "rotation is not a whole number of 0 or more";
        }
        if (!(j.get("loaded_everywhere").isNull() || j.get("loaded_everywhere").isTextual())
                || !(j.get("requested").isNull() || j.get("requested").isTextual())) {
            return "loaded_everywhere or requested is neither null nor a string";
        }
        return null;
    }
}
