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
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

    @Test
    void theFirstKeysFileReadsAsNeverRotated() throws IOException {
        SlurmKeys.open(state, clock);

        KeyPhases.State s = SlurmKeys.open(state, Clock.fixed(NOW.plusSeconds(60), ZoneOffset.UTC))
                .state();

        assertEquals(KeyPhases.Phase.STEADY, s.phase());
        assertEquals(0, s.rotation());
        assertEquals(NOW, s.since(), "made");
        assertEquals(2, s.nextKid());
        assertEquals(Optional.empty(), s.requested());
        assertEquals("", s.by());
    }

    @Test
    void everyPhaseIsKeptBeforeItIsHeldAndReadBackAfterARestart() throws IOException {
        List<byte[]> kept = new ArrayList<>();
        SlurmKeys keys = SlurmKeys.open(state, clock, kept::add);
        Path file = state.resolve(SlurmKeys.FILE);

        KeyPhases.State added = keys.rotate("root over the leader's socket");

        assertEquals(KeyPhases.Phase.ADDED, added.phase());
        assertEquals(added, keys.state());
        assertEquals(added.keys(), keys.current(), "the plans carry the new list");
        assertEquals(2, kept.size());
        assertEquals(new String(kept.get(1), StandardCharsets.UTF_8), Files.readString(file));
        assertEquals("r--------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        JsonNode j = JSON.readTree(file.toFile());
        assertEquals("ADDED", j.get("phase").asText());
        assertEquals(NOW.toString(), j.get("since").asText());
        assertEquals(NOW.toString(), j.get("requested").asText());
        assertTrue(j.get("loaded_everywhere").isNull());
        assertEquals(1, j.get("rotation").asLong());
        assertEquals(3, j.get("next_kid").asLong());
        assertEquals("root over the leader's socket", j.get("by").asText());
        assertEquals(added, SlurmKeys.open(state, clock).state(), "a restart goes on where it was");

        Map<String, Set<String>> none = Map.of();
        KeyPhases.State switched = KeyPhases.next(added, none, Map.of(), NOW.plusSeconds(5), Duration.ofSeconds(90))
                .orElseThrow();
        keys.advance(switched);
        assertEquals(switched, SlurmKeys.open(state, clock).state());
        KeyPhases.State loaded = KeyPhases.next(switched, none, Map.of(), NOW.plusSeconds(6), Duration.ofSeconds(90))
                .orElseThrow();
        keys.advance(loaded);
        assertEquals(loaded, SlurmKeys.open(state, clock).state());
        assertEquals(
                NOW.plusSeconds(6).toString(),
                JSON.readTree(file.toFile()).get("loaded_everywhere").asText());
        KeyPhases.State steady = KeyPhases.next(loaded, none, Map.of(), NOW.plusSeconds(96), Duration.ofSeconds(90))
                .orElseThrow();
        keys.advance(steady);
        KeyPhases.State read = SlurmKeys.open(state, clock).state();
        assertEquals(steady, read);
        assertEquals(List.of("slurmlet-2"), read.keys().jwks().kids());
        assertEquals(5, kept.size(), "each change kept once");
        keys.advance(steady);
        assertEquals(5, kept.size(), "the state held is not kept again");
    }

    @Test
    void aSecondRotationIsRefusedWhileOneIsUnderWayAndChangesNothing() throws IOException {
        SlurmKeys keys = SlurmKeys.open(state, clock);
        KeyPhases.State added = keys.rotate("root");
        String before = Files.readString(state.resolve(SlurmKeys.FILE));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> keys.rotate("bob"));

        assertTrue(e.getMessage().contains("is under way"), e.getMessage());
        assertEquals(added, keys.state());
        assertEquals(before, Files.readString(state.resolve(SlurmKeys.FILE)));
    }

    @Test
    void aKeeperThatFailsLeavesTheStateAndTheFileAsTheyWere() throws IOException {
        boolean[] fail = {false};
        SlurmKeys keys = SlurmKeys.open(state, clock, json -> {
            if (fail[0]) {
                throw new IOException("etcd did not answer");
            }
        });
        KeyPhases.State first = keys.state();
        String before = Files.readString(state.resolve(SlurmKeys.FILE));
        fail[0] = true;

        assertEquals(
                "etcd did not answer",
                assertThrows(IOException.class, () -> keys.rotate("root")).getMessage());
        assertEquals(first, keys.state());
        assertEquals(first.keys(), keys.current());
        assertEquals(before, Files.readString(state.resolve(SlurmKeys.FILE)));

        fail[0] = false;
        KeyPhases.State added = keys.rotate("root");
        before = Files.readString(state.resolve(SlurmKeys.FILE));
        fail[0] = true;
        KeyPhases.State switched = KeyPhases.next(added, Map.of(), Map.of(), NOW, Duration.ofSeconds(90))
                .orElseThrow();
        assertThrows(IOException.class, () -> keys.advance(switched));
        assertEquals(added, keys.state());
        assertEquals(before, Files.readString(state.resolve(SlurmKeys.FILE)));
    }

    @Test
    void theKeeperHoldsTheNewStateBeforeTheFileSoALeaderStoppedBetweenGoesOnFromIt() throws IOException {
        List<byte[]> kept = new ArrayList<>();
        Path file = state.resolve(SlurmKeys.FILE);
        SlurmKeys keys = SlurmKeys.open(state, clock, json -> {
            if (Files.exists(file)) {
                try {
                    assertEquals("STEADY", phaseIn(Files.readAllBytes(file)), "the keeper first, then the file");
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }
            kept.add(json);
        });
        KeyPhases.State added = keys.rotate("root");

        // A leader elected after one that stopped between the two writes takes the kept bytes (LeaderSecrets).
        Path other = state.resolve("other");
        Files.createDirectories(other);
        Files.write(other.resolve(SlurmKeys.FILE), kept.get(kept.size() - 1));
        assertEquals(added, SlurmKeys.open(other, clock).state());
    }

    @Test
    void aStateThatDoesNotFollowIsRefused() throws IOException {
        SlurmKeys keys = SlurmKeys.open(state, clock);
        KeyPhases.State added = keys.rotate("root");
        KeyPhases.State other =
                KeyPhases.rotate(KeyPhases.State.first(added.keys(), NOW, 9), NOW, "bob"); // another rotation's

        assertThrows(IllegalArgumentException.class, () -> keys.advance(other));
        assertThrows(IllegalArgumentException.class, () -> keys.advance(KeyPhases.State.first(keys.current(), NOW, 3)));
        assertEquals(added, keys.state());
    }

    @Test
    void aCorruptRotationIsNamedAndItsTextNeverShown() throws IOException {
        SlurmKeys keys = SlurmKeys.open(state, clock);
        keys.rotate("root");
        Path file = state.resolve(SlurmKeys.FILE);
        String text = Files.readString(file);
        String k = key(keys.current());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        for (String corrupt : List.of(
                text.replace("\"phase\":\"ADDED\"", "\"phase\":\"DONE\""),
                text.replace("\"loaded_everywhere\":null", "\"loaded_everywhere\":7"),
                text.replace("\"loaded_everywhere\":null", "\"loaded_everywhere\":\"soon\""),
                text.replace("\"loaded_everywhere\":null,", ""),
                text.replace("\"rotation\":1", "\"rotation\":-1"),
                text.replace("\"phase\":\"ADDED\"", "\"phase\":\"ADDED\",\"made\":\"" + k + "\""))) {
            assertFalse(corrupt.equals(text), corrupt);
            Files.writeString(file, corrupt);
            IOException e = assertThrows(IOException.class, () -> SlurmKeys.open(state, clock));
            assertTrue(
                    e.getMessage().startsWith("the cluster's Slurm keys in " + file + " are not readable ("),
                    e.getMessage());
            assertFalse(e.getMessage().contains(k.substring(0, 8)), e.getMessage());
            assertFalse(e.getMessage().contains("soon"), e.getMessage());
        }
    }

    private static String phaseIn(byte[] json) throws IOException {
        JsonNode j = JSON.readTree(json);
        return j.has("phase") ? j.get("phase").asText() : "STEADY";
    }

    /** The base64 of the one key {@code current} holds. */
    private static String key(io.slurmlet.model.plan.SlurmAuthKeys current) throws IOException {
        return JSON.readTree(current.jwks().text()).get("keys").get(0).get("k").asText();
    }
}
