package io.slurmlet.agent.leader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slurmlet.agent.store.SealedSecrets;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.plan.MungeKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The cluster's munge key on the leader, and its rotations. The key is {@code munge.key} in the
 * state directory (0400), made at the first start; a rotation makes a new one and picks the moment
 * every machine switches to it, a few seconds out, so that the machines' munged disagree for as
 * short a time as possible (system-tests/slurm/FINDINGS.md: a credential signed with one key is
 * refused by a munged holding the other).
 *
 * <p>A rotation is durable before it is answered: {@code munge-rotation.json} (0400), written
 * atomically, holds the new key, its rotation number and its moment, and is what the leader reads
 * at start; {@code munge.key} is written after it (a leader that stopped between the two writes it
 * at its next start). With etcd, both are first put into the cluster's sealed secrets ({@link Keeper}),
 * so that a leader elected after this one takes the same key, number and moment and its plans keep
 * the moment. Neither the key nor anything made from it is ever logged or answered.
 */
public final class MungeKeys {

    public static final String ROTATION_FILE = SealedSecrets.MUNGE_ROTATION_FILE;
    /** How far out a rotation's moment is: long enough for every agent's long poll to bring its plan. */
    public static final Duration LEAD = Duration.ofSeconds(10);

    private static final Logger LOG = Logger.getLogger(MungeKeys.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Where a rotation is made durable for the whole cluster before this leader's own files are
     * written: nothing more with the file store (its folder is the cluster's state); with etcd, the
     * cluster's sealed secrets ({@link LeaderSecrets#putMungeRotation}), which every next leader
     * takes.
     */
    @FunctionalInterface
    public interface Keeper {
        Keeper FOLDER = (key, rotation) -> {};

        /** Keeps {@code key} and its rotation ({@code munge-rotation.json}'s bytes); on an error nothing was kept. */
        void keep(byte[] key, byte[] rotation) throws IOException;
    }

    /** A rotation, as answered: never the key. */
    public record Rotation(long rotation, Instant switchAt, Instant requested, String by) {}

    private final Path stateDir;
    private final Clock clock;
    private final Keeper keeper;
    private MungeKey current;
    private Optional<Rotation> last;

    private MungeKeys(Path stateDir, Clock clock, Keeper keeper, MungeKey current, Optional<Rotation> last) {
        this.stateDir = stateDir;
        this.keeper = keeper;
        this.clock = clock;
        this.current = current;
        this.last = last;
    }

    /** The key of {@code stateDir} (made at the first start) and its last rotation, if any: the file store's. */
    public static MungeKeys open(Path stateDir, Clock clock) throws IOException {
        return open(stateDir, clock, Keeper.FOLDER);
    }

    /**
     * The key of a leader whose secrets are kept in etcd, sealed, beside other leaders'
     * ({@link LeaderSecrets}): read from {@code stateDir}, where the election took them (the key and
     * its last rotation), and rotated into etcd first through {@code keeper}, so that the next
     * leader's election takes the new key with its number and moment.
     */
    public static MungeKeys open(Path stateDir, Clock clock, Keeper keeper) throws IOException {
        MungeKey key = PlanPublisher.mungeKey(stateDir);
        Path file = stateDir.resolve(ROTATION_FILE);
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new MungeKeys(stateDir, clock, keeper, key, Optional.empty());
        }
        JsonNode j;
        MungeKey rotated;
        Rotation r;
        try {
            j = JSON.readTree(text);
            r = new Rotation(
                    j.path("rotation").asLong(),
                    Instant.parse(j.path("switch_at").asText()),
                    Instant.parse(j.path("requested").asText()),
                    j.path("by").asText());
            rotated = MungeKey.of(Base64.getDecoder().decode(j.path("key").asText()))
                    .rotated(r.rotation(), Optional.of(r.switchAt()));
        } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
            // Never the text: it holds the key.
            throw new IOException(
                    ("the cluster's last munge key rotation in %s is not readable (%s): restore it from a backup, "
                                    + "or remove it to go back to the key in %s")
                            .formatted(
                                    file, e.getClass().getSimpleName(), stateDir.resolve(PlanPublisher.MUNGE_KEY_FILE)),
                    null);
        }
        if (r.rotation() < 1) {
            throw new IOException(
                    "the cluster's last munge key rotation in %s has no rotation number: restore it from a backup"
                            .formatted(file));
        }
        if (!key.sameKey(rotated.bytes())) {
            // The leader stopped between the rotation's two writes: the rotation is the cluster's key.
            writeKey(stateDir, rotated);
            LOG.infof(
                    "wrote rotation %d's munge key to %s (the leader had stopped before it did)",
                    r.rotation(), stateDir.resolve(PlanPublisher.MUNGE_KEY_FILE));
        }
        return new MungeKeys(stateDir, clock, keeper, rotated, Optional.of(r));
    }

    /** The key every plan carries now, with its rotation and moment. */
    public synchronized MungeKey current() {
        return current;
    }

    /** The last rotation; empty where the cluster holds its first key. */
    public synchronized Optional<Rotation> last() {
        return last;
    }

    /**
     * Makes a new key, switched to by every machine {@link #LEAD} from now; durable when it returns.
     *
     * @param by who asked, as the leader's log names callers
     */
    public synchronized Rotation rotate(String by) throws IOException {
        Instant now = clock.instant();
        Rotation r = new Rotation(current.rotation() + 1, now.plus(LEAD), now, by);
        MungeKey made = MungeKey.random().rotated(r.rotation(), Optional.of(r.switchAt()));
        ObjectNode j = JSON.createObjectNode();
        j.put("rotation", r.rotation());
        j.put("switch_at", r.switchAt().toString());
        j.put("requested", r.requested().toString());
        j.put("by", r.by());
        j.put("key", Base64.getEncoder().encodeToString(made.bytes()));
        byte[] rotation = JSON.writeValueAsBytes(j);
        keeper.keep(made.bytes(), rotation);
        try {
            AtomicFile.ensurePrivateDirectory(stateDir);
            AtomicFile.write(stateDir.resolve(ROTATION_FILE), rotation, PosixFilePermissions.fromString("r--------"));
            writeKey(stateDir, made);
        } catch (IOException e) {
            if (keeper == Keeper.FOLDER) {
                throw e;
            }
            throw new IOException(
                    ("rotation %d is kept in the cluster's secrets, and this leader could not write it into %s (%s): "
                                    + "restart this agent, which takes it from there when elected")
                            .formatted(r.rotation(), stateDir, e.getMessage()),
                    e);
        }
        current = made;
        last = Optional.of(r);
        LOG.infof(
                "munge key rotation %d asked by %s: every machine switches to the new key at %s",
                r.rotation(), by, r.switchAt());
        return r;
    }

    private static void writeKey(Path stateDir, MungeKey key) throws IOException {
        AtomicFile.write(
                stateDir.resolve(PlanPublisher.MUNGE_KEY_FILE),
                key.bytes(),
                PosixFilePermissions.fromString("r--------"));
    }
}
