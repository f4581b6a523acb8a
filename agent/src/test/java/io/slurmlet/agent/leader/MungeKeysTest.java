package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.plan.MungeKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MungeKeysTest {

    private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");
    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path state;

    @Test
    void aRotationMakesANewKeyDueTenSecondsOutAndKeepsItAcrossARestart() throws IOException {
        MungeKeys keys = MungeKeys.open(state, clock);
        MungeKey first = keys.current();
        assertEquals(0, first.rotation());
        assertEquals(Optional.empty(), first.switchAt());
        assertEquals(Optional.empty(), keys.last());

        MungeKeys.Rotation r = keys.rotate("root over the leader's socket");

        assertEquals(new MungeKeys.Rotation(1, NOW.plusSeconds(10), NOW, "root over the leader's socket"), r);
        MungeKey next = keys.current();
        assertFalse(next.sameKey(first.bytes()), "a new key");
        assertEquals(1, next.rotation());
        assertEquals(Optional.of(NOW.plusSeconds(10)), next.switchAt());
        assertArrayEquals(
                next.bytes(), Files.readAllBytes(state.resolve("munge.key")), "munge.key is the cluster's key");
        assertEquals(
                "r--------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(MungeKeys.ROTATION_FILE))));

        MungeKeys again = MungeKeys.open(state, clock);
        assertEquals(next, again.current(), "the key, its rotation and its moment outlive the leader");
        assertEquals(Optional.of(r), again.last());
        assertEquals(2, again.rotate("x").rotation());
    }

    @Test
    void aLeaderStoppedBetweenTheTwoWritesTakesTheRotationsKeyAtItsNextStart() throws IOException {
        MungeKeys keys = MungeKeys.open(state, clock);
        keys.rotate("root");
        MungeKey rotated = keys.current();
        Path key = state.resolve("munge.key");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Files.write(key, MungeKey.random().bytes()); // the key before, as if the second write never happened

        assertEquals(rotated, MungeKeys.open(state, clock).current());
        assertArrayEquals(rotated.bytes(), Files.readAllBytes(key));
    }

    @Test
    void noErrorOrAnswerHoldsTheKey() throws IOException {
        MungeKeys keys = MungeKeys.open(state, clock);
        MungeKeys.Rotation r = keys.rotate("root");
        String base64 = Base64.getEncoder().encodeToString(keys.current().bytes());
        assertFalse(r.toString().contains(base64.substring(0, 12)));
        assertFalse(keys.current().toString().contains(base64.substring(0, 12)));

        Path file = state.resolve(MungeKeys.ROTATION_FILE);
        String text = Files.readString(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(file, text.replace("\"switch_at\":\"", "\"switch_at\":\"soon"));
        IOException e = assertThrows(IOException.class, () -> MungeKeys.open(state, clock));
        assertTrue(
                e.getMessage().startsWith("the cluster's last munge key rotation in " + file + " is not readable"),
                e.getMessage());
        assertFalse(e.getMessage().contains(base64.substring(0, 12)));
    }
}
