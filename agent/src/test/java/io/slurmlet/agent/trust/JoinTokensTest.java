package io.slurmlet.agent.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JoinTokensTest {

    @TempDir
    Path state;

    final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T12:00:00Z"));
    final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    @Test
    void aTokenWorksUntilItExpiresAndAfterARestart() throws Exception {
        JoinTokens tokens = JoinTokens.open(state, clock);
        JoinTokens.Created made = tokens.create(JoinTokens.DEFAULT_TTL, "rack 12");
        assertTrue(made.token().matches("[a-z0-9]{8}\\.[A-Za-z0-9_-]{43}"), made.token());
        assertFalse(made.toString().contains(made.token()));
        assertEquals(made.entry().id(), tokens.match(made.token()).orElseThrow().id());
        assertTrue(tokens.match(made.token() + "x").isEmpty());
        assertTrue(tokens.match(made.entry().id() + ".wrong").isEmpty());
        now.set(now.get().plus(Duration.ofHours(23)));
        assertTrue(JoinTokens.open(state, clock).match(made.token()).isPresent(), "kept across a restart");
        now.set(now.get().plus(Duration.ofHours(1)));
        assertTrue(tokens.match(made.token()).isEmpty(), "expired at 24 h");
        assertTrue(tokens.list().get(0).expiredAt(now.get()), "an expired token is still listed for a week");
        now.set(now.get().plus(Duration.ofDays(8)));
        tokens.create(Duration.ofHours(1), "");
        assertEquals(1, tokens.list().size(), "then forgotten");
        assertFalse(Files.readString(state.resolve(JoinTokens.FILE_NAME))
                .contains(made.token().substring(9)));
    }

    @Test
    void aRevokedTokenStopsAtOnceAndBadAsksAreRefused() throws Exception {
        JoinTokens tokens = JoinTokens.open(state, clock);
        JoinTokens.Created made = tokens.create(Duration.ofMinutes(5), "");
        assertTrue(tokens.revoke(made.entry().id()));
        assertTrue(tokens.match(made.token()).isEmpty());
        assertFalse(tokens.revoke(made.entry().id()));
        assertThrows(IllegalArgumentException.class, () -> tokens.create(Duration.ofDays(31), ""));
        assertThrows(IllegalArgumentException.class, () -> tokens.create(Duration.ZERO, ""));
        assertThrows(IllegalArgumentException.class, () -> tokens.create(Duration.ofHours(1), "a\nb"));
    }

    @Test
    void anEarlierSlurmletsTokenIsTakenOverForADayThenRemoved() throws Exception {
        String old = "A".repeat(43);
        Files.writeString(state.resolve(TokenFile.JOIN_FILE_NAME), old + "\n");
        JoinTokens tokens = JoinTokens.open(state, clock);
        assertEquals("initial0", tokens.match(old).orElseThrow().id());
        assertFalse(Files.exists(state.resolve(TokenFile.JOIN_FILE_NAME)));
        now.set(now.get().plus(Duration.ofHours(25)));
        assertTrue(JoinTokens.open(state, clock).match(old).isEmpty());
    }

    /**
     * A join's token check (on the agents' channel's event loop) never waits for a token being
     * written: with a creation's write held inside the store, as a slow etcd holds it, a live token
     * is still matched at once. On the old code the match waited for the lock the write held.
     */
    @Test
    void aTokenIsMatchedAtOnceWhileAnotherTokensWriteIsHeldInTheStore() throws Exception {
        HeldStore store = new HeldStore(io.slurmlet.agent.store.FileStore.open(state));
        JoinTokens tokens = JoinTokens.open(store, clock, state.resolve(TokenFile.JOIN_FILE_NAME));
        JoinTokens.Created live = tokens.create(Duration.ofHours(1), "rack 12");
        var writer = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<JoinTokens.Created> creation;
            try (HeldStore.Hold held = store.hold(JoinTokens.FILE_NAME)) {
                creation = writer.submit(() -> tokens.create(Duration.ofHours(1), "rack 13"));
                held.awaitWriter();
                org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                        Duration.ofSeconds(5),
                        () -> assertEquals(
                                live.entry().id(),
                                tokens.match(live.token()).orElseThrow().id()),
                        "a match waited for the creation's write");
                assertFalse(creation.isDone(), "the creation's write was still held while the match answered");
            }
            JoinTokens.Created made = creation.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(
                    made.entry().id(),
                    tokens.match(made.token()).orElseThrow().id(),
                    "matched once its write is durable");
        } finally {
            writer.shutdownNow();
        }
    }
}
