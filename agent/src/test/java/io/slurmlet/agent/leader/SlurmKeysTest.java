package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slurmlet.model.plan.SlurmJwks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlurmKeysTest {

    private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path state;

    @Test
    void theFirstStartMakesGenerationOneWithOneSigningKeyAndARestartKeepsIt() throws IOException {
        io.slurmlet.model.plan.SlurmAuthKeys first =
                SlurmKeys.open(state, clock).current();

        assertEquals(1, first.generation());
        assertEquals(List.of("slurmlet-1"), first.jwks().kids());
        assertEquals("slurmlet-1", first.jwks().signing());
        Path file = state.resolve(SlurmKeys.FILE);
        assertEquals("r--------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        JsonNode j = JSON.readTree(file.toFile());
        assertEquals(1, j.get("generation").asLong());
        assertEquals(2, j.get("next_kid").asLong());
        assertEquals(NOW.toString(), j.get("made").asText());
        assertEquals(first.jwks(), SlurmJwks.of(j.get("jwks").asText()));

        byte[] before = Files.readAllBytes(file);
        assertEquals(first, SlurmKeys.open(state, clock).current(), "the keys outlive the leader");
        assertEquals(new String(before, StandardCharsets.UTF_8), Files.readString(file), "a restart writes nothing");
    }

    @Test
    void theKeeperKeepsTheFileBeforeItIsWritten() throws IOException {
        List<byte[]> kept = new ArrayList<>();
        SlurmKeys keys = SlurmKeys.open(state, clock, json -> {
            assertFalse(Files.exists(state.resolve(SlurmKeys.FILE)), "the keeper first, then the file");
            kept.add(json);
        });

        assertEquals(1, kept.size());
        assertEquals(new String(kept.get(0), StandardCharsets.UTF_8), Files.readString(state.resolve(SlurmKeys.FILE)));
        assertEquals(
                keys.current(),
                SlurmKeys.open(state, clock, json -> kept.add(json)).current());
        assertEquals(1, kept.size(), "keys read back are not kept again");
    }

    @Test
    void aKeeperThatFailsLeavesNoFile() {
        IOException refused = new IOException("the leader stands by");
        IOException e = assertThrows(
                IOException.class,
                () -> SlurmKeys.open(state, clock, json -> {
                    throw refused;
                }));
        assertSame(refused, e);
        assertFalse(Files.exists(state.resolve(SlurmKeys.FILE)));
    }

    @Test
    void aCorruptFileIsNamedAndItsTextNeverShown() throws IOException {
        SlurmKeys.open(state, clock);
        Path file = state.resolve(SlurmKeys.FILE);
        String text = Files.readString(file);
        String k = key(SlurmKeys.open(state, clock).current());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        for (String corrupt : List.of(
                text.replace("\"made\":\"", "\"made\":\"soon"),
                text.substring(0, text.length() / 2),
                text.replace("\"generation\":1", "\"generation\":0"),
                text.replace("\"next_kid\":2", "\"next_kid\":1"),
                text.replace("\"next_kid\":2", "\"next_kid\":2,\"extra\":\"" + k + "\""),
                text.replace(k, k.substring(0, 8)))) {
            Files.writeString(file, corrupt);
            IOException e = assertThrows(IOException.class, () -> SlurmKeys.open(state, clock));
            assertTrue(
                    e.getMessage().startsWith("the cluster's Slurm keys in " + file + " are not readable ("),
                    e.getMessage());
            assertFalse(e.getMessage().contains(k.substring(0, 8)), e.getMessage());
            assertFalse(e.getMessage().contains("soon"), e.getMessage());
            assertEquals(null, e.getCause());
        }
    }

    @Test
    void theCurrentKeysNameTheirGenerationAndKidsOnly() throws IOException {
        io.slurmlet.model.plan.SlurmAuthKeys current =
                SlurmKeys.open(state, clock).current();
        String k = key(current);

        String shown = current.toString();

        assertTrue(shown.contains("generation 1") && shown.contains("slurmlet-1"), shown);
        assertFalse(shown.contains(k.substring(0, 12)), shown);
    }

    /** The base64 of the one key {@code current} holds. */
    private static String key(io.slurmlet.model.plan.SlurmAuthKeys current) throws IOException {
        return JSON.readTree(current.jwks().text()).get("keys").get(0).get("k").asText();
    }
}
