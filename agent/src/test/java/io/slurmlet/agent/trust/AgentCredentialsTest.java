package io.slurmlet.agent.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCredentialsTest {

    @TempDir
    Path state;

    @Test
    void eachCredentialNamesItsOwnMachineOnlyUntilRevokedAndOnlyItsHashIsKept() throws Exception {
        AgentCredentials credentials = AgentCredentials.open(state);
        String n1 = credentials.issueUnlessJoined("n1", "tok00001").orElseThrow();
        String n2 = credentials.issueUnlessJoined("n2", "tok00001").orElseThrow();
        assertEquals(Optional.of("n1"), credentials.nodeOf(n1));
        assertEquals(Optional.of("n2"), credentials.nodeOf(" " + n2 + "\n"));
        for (String wrong : new String[] {null, "", "  ", n1.substring(1), n1 + "x", Secrets.hash(n1)}) {
            assertEquals(Optional.empty(), credentials.nodeOf(wrong), String.valueOf(wrong));
        }
        assertEquals(Optional.empty(), credentials.issueUnlessJoined("N1", "tok00001"), "a name joined, in any case");
        String kept = Files.readString(state.resolve("agents/n1")) + Files.readString(state.resolve("agents/n2"));
        assertFalse(kept.contains(n1) || kept.contains(n2), "no credential in the state folder");
        assertTrue(kept.contains(Secrets.hash(n1)) && kept.contains(Secrets.hash(n2)), kept);
        assertFalse(Files.exists(state.resolve(AgentCredentials.FILE_NAME)), "one document a machine, no whole file");

        AgentCredentials reopened = AgentCredentials.open(state);
        assertEquals(Optional.of("n2"), reopened.nodeOf(n2), "after a restart");
        assertTrue(reopened.revoke("n2"));
        assertEquals(Optional.empty(), reopened.nodeOf(n2));
        String again = reopened.issue("n1");
        assertEquals(Optional.empty(), reopened.nodeOf(n1), "a new credential replaces the old one");
        assertEquals(Optional.of("n1"), reopened.nodeOf(again));
        assertFalse(Files.exists(state.resolve("agents/n2")), "a revoked machine's document is gone");
        assertEquals(java.util.Set.of("n1"), AgentCredentials.open(state).machines());
    }

    /**
     * Removing a machine keeps its name refused, in any case and across a restart, for a join with any
     * token and for the leader's own machine's in-process credential, until an admin allows it again;
     * its credential is revoked, and the join token it joined with is told for revoking.
     */
    @Test
    void aRemovedNameIsRefusedUntilAllowedAndTheRemovalNamesTheJoinTokenItJoinedWith() throws Exception {
        AgentCredentials credentials = AgentCredentials.open(state);
        String n1 = credentials.issueUnlessJoined("n1", "4k2j9x0a").orElseThrow();
        assertEquals(Optional.of("4k2j9x0a"), credentials.joinToken("n1"));
        assertTrue(
                Files.readString(state.resolve("agents/n1")).contains("\"join_token\" : \"4k2j9x0a\""),
                Files.readString(state.resolve("agents/n1")));

        var removed = credentials.remove(
                "n1", java.time.Instant.parse("2026-12-01T12:00:00Z"), "root over the leader's socket");
        assertEquals(new AgentCredentials.Removed(true, Optional.of("4k2j9x0a")), removed);
        assertEquals(Optional.empty(), credentials.nodeOf(n1));
        for (AgentCredentials c : List.of(credentials, AgentCredentials.open(state))) {
            AgentCredentials.NameRemoved refused =
                    assertThrows(AgentCredentials.NameRemoved.class, () -> c.issueUnlessJoined("N1", "other000"));
            assertEquals(
                    "n1 was removed from this cluster at 2026-12-01T12:00:00Z, and its name is "
                            + "refused since: if this machine is to join again, an admin allows it on the leader first: ctl slurm machines allow n1",
                    refused.getMessage());
            assertThrows(AgentCredentials.NameRemoved.class, () -> c.issue("n1"), "the leader's own machine too");
            assertEquals(
                    java.util.Map.of(
                            "n1",
                            new AgentCredentials.Removal(
                                    "2026-12-01T12:00:00Z", "root over the leader's socket", "4k2j9x0a")),
                    c.removed());
        }
        assertEquals(
                new AgentCredentials.Removed(false, Optional.empty()),
                credentials.remove("n1", java.time.Instant.now(), "root"));
        assertEquals(
                "4k2j9x0a",
                credentials.removed().get("n1").joinToken(),
                "removed again: the token of the first removal stays named");

        assertEquals(Optional.of("n1"), credentials.allow("N1"));
        assertEquals(Optional.empty(), credentials.allow("n1"), "allowed already");
        assertFalse(Files.exists(state.resolve("removed/n1")));
        assertEquals(java.util.Map.of(), AgentCredentials.open(state).removed());
        String again = credentials.issueUnlessJoined("n1", "other000").orElseThrow();
        assertEquals(Optional.of("n1"), credentials.nodeOf(again));
        assertEquals(Optional.of("other000"), credentials.joinToken("n1"));
    }

    /** A credential kept before slurmlet kept the join token with it (or the leader's own machine's) knows none, and says so. */
    @Test
    void aCredentialWithoutAJoinTokenIsReadAndWrittenWithoutOne() throws Exception {
        Files.createDirectories(state.resolve("agents"));
        String credential = "c".repeat(43);
        Files.writeString(state.resolve("agents/n1"), "{\"sha256\": \"%s\"}".formatted(Secrets.hash(credential)));
        AgentCredentials credentials = AgentCredentials.open(state);
        assertEquals(Optional.of("n1"), credentials.nodeOf(credential));
        assertEquals(Optional.empty(), credentials.joinToken("n1"));
        credentials.issue("n2");
        assertFalse(
                Files.readString(state.resolve("agents/n2")).contains("join_token"),
                "an earlier slurmlet reads it still: " + Files.readString(state.resolve("agents/n2")));
        assertEquals(
                new AgentCredentials.Removed(true, Optional.empty()),
                credentials.remove("n1", java.time.Instant.now(), "root"));
        assertEquals("", credentials.removed().get("n1").joinToken());
    }

    /** A leader upgraded from a slurmlet that kept every hash in agents.json: each machine's moves to a document of its own. */
    @Test
    void theOneFileOfEarlierLeadersIsMovedIntoADocumentAMachineAndEveryMachineStillJoined() throws Exception {
        AgentCredentials first = AgentCredentials.open(state);
        String n1 = first.issue("n1");
        String n2 = first.issue("gpu-B");
        Files.writeString(
                state.resolve(AgentCredentials.FILE_NAME),
                "{\"n1\": \"%s\", \"gpu-B\": \"%s\"}".formatted(Secrets.hash(n1), Secrets.hash(n2)));
        for (String node : new String[] {"n1", "gpu-B"}) {
            Files.delete(state.resolve("agents/" + node));
        }

        AgentCredentials upgraded = AgentCredentials.open(state);
        assertEquals(Optional.of("n1"), upgraded.nodeOf(n1));
        assertEquals(Optional.of("gpu-B"), upgraded.nodeOf(n2));
        assertEquals(Optional.of("gpu-B"), upgraded.joinedAs("GPU-b"), "a name joined, in any case");
        assertFalse(Files.exists(state.resolve(AgentCredentials.FILE_NAME)), "the old file is removed once moved");
        assertTrue(Files.readString(state.resolve("agents/gpu-B")).contains(Secrets.hash(n2)));
        assertEquals(Optional.of("n1"), AgentCredentials.open(state).nodeOf(n1), "and read again from the documents");
    }

    @Test
    void aKeptHashThatCannotBeReadStopsTheLeaderNamingTheFileAndTheFix() throws Exception {
        AgentCredentials.open(state).issue("n1");
        Files.writeString(state.resolve("agents/n1"), "{\"sha256\": ");
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.io.IOException.class, () -> AgentCredentials.open(state));
        assertTrue(
                e.getMessage().contains(state.resolve("agents/n1").toString())
                        && e.getMessage().contains("join that machine again"),
                e.getMessage());
    }

    /**
     * A credential check (the agents' channel's, on its event loop) never waits for a write in
     * flight: with a join's write, then a removal's, held inside the store as a slow etcd holds
     * them, the other machine's credential and the count are answered at once. What a write changes
     * is seen once it is durable: the new credential after the join's write, the revocation after
     * the removal's. On the old code each check waited for the lock the write held.
     */
    @Test
    void aCredentialCheckIsAnsweredAtOnceWhileAJoinsOrARemovalsWriteIsHeldInTheStore() throws Exception {
        HeldStore store = new HeldStore(io.slurmlet.agent.store.FileStore.open(state));
        AgentCredentials credentials = AgentCredentials.open(store);
        String n1 = credentials.issueUnlessJoined("n1", "tok00001").orElseThrow();
        var writer = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<Optional<String>> join;
            try (HeldStore.Hold held = store.hold("agents/n2")) {
                join = writer.submit(() -> credentials.issueUnlessJoined("n2", "tok00001"));
                held.awaitWriter();
                assertTimeoutPreemptively(
                        java.time.Duration.ofSeconds(5),
                        () -> {
                            assertEquals(Optional.of("n1"), credentials.nodeOf(n1));
                            assertEquals(Optional.empty(), credentials.nodeOf("x".repeat(43)));
                            assertEquals(1, credentials.count());
                        },
                        "a check waited for the join's write");
                assertFalse(join.isDone(), "the join's write was still held while the check answered");
            }
            String n2 = join.get(10, java.util.concurrent.TimeUnit.SECONDS).orElseThrow();
            assertEquals(Optional.of("n2"), credentials.nodeOf(n2), "a credential is taken once its write is durable");
            assertEquals(2, credentials.count());

            java.util.concurrent.Future<AgentCredentials.Removed> removal;
            try (HeldStore.Hold held = store.hold("agents/n2")) {
                removal = writer.submit(() -> credentials.remove("n2", java.time.Instant.now(), "root"));
                held.awaitWriter();
                assertTimeoutPreemptively(
                        java.time.Duration.ofSeconds(5),
                        () -> {
                            assertEquals(Optional.of("n1"), credentials.nodeOf(n1));
                            assertEquals(
                                    Optional.of("n2"),
                                    credentials.nodeOf(n2),
                                    "revoked once the revocation is durable, not before");
                        },
                        "a check waited for the removal's write");
                assertFalse(removal.isDone(), "the removal's write was still held while the check answered");
            }
            assertTrue(removal.get(10, java.util.concurrent.TimeUnit.SECONDS).credentialRevoked());
            assertEquals(Optional.empty(), credentials.nodeOf(n2), "refused once the removal returned");
            assertEquals(1, credentials.count());
        } finally {
            writer.shutdownNow();
        }
    }
}
