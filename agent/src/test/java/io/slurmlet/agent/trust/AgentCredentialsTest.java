package io.slurmlet.agent.trust;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentCredentialsTest {

    @TempDir
    Path state;

    @Test
    void eachCredentialNamesItsOwnMachineOnlyUntilRevokedAndOnlyItsHashIsKept() throws Exception {
        AgentCredentials credentials = AgentCredentials.open(state);
        String n1 = credentials.issueUnlessJoined("n1").orElseThrow();
        String n2 = credentials.issueUnlessJoined("n2").orElseThrow();
        assertEquals(Optional.of("n1"), credentials.nodeOf(n1));
        assertEquals(Optional.of("n2"), credentials.nodeOf(" " + n2 + "\n"));
        for (String wrong : new String[] {null, "", "  ", n1.substring(1), n1 + "x", AgentCredentials.hash(n1)}) {
            assertEquals(Optional.empty(), credentials.nodeOf(wrong), String.valueOf(wrong));
        }
        assertEquals(Optional.empty(), credentials.issueUnlessJoined("N1"), "a name joined, in any case");
        String kept = Files.readString(state.resolve("agents/n1")) + Files.readString(state.resolve("agents/n2"));
        assertFalse(kept.contains(n1) || kept.contains(n2), "no credential in the state folder");
        assertTrue(kept.contains(AgentCredentials.hash(n1)) && kept.contains(AgentCredentials.hash(n2)), kept);
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

    /** A leader upgraded from a slurmlet that kept every hash in agents.json: each machine's moves to a document of its own. */
    @Test
    void theOneFileOfEarlierLeadersIsMovedIntoADocumentAMachineAndEveryMachineStillJoined() throws Exception {
        AgentCredentials first = AgentCredentials.open(state);
        String n1 = first.issue("n1");
        String n2 = first.issue("gpu-B");
        Files.writeString(state.resolve(AgentCredentials.FILE_NAME), "{\"n1\": \"%s\", \"gpu-B\": \"%s\"}"
                .formatted(AgentCredentials.hash(n1), AgentCredentials.hash(n2)));
        for (String node : new String[] {"n1", "gpu-B"}) {
            Files.delete(state.resolve("agents/" + node));
        }

        AgentCredentials upgraded = AgentCredentials.open(state);
        assertEquals(Optional.of("n1"), upgraded.nodeOf(n1));
        assertEquals(Optional.of("gpu-B"), upgraded.nodeOf(n2));
        assertEquals(Optional.of("gpu-B"), upgraded.joinedAs("GPU-b"), "a name joined, in any case");
        assertFalse(Files.exists(state.resolve(AgentCredentials.FILE_NAME)), "the old file is removed once moved");
        assertTrue(Files.readString(state.resolve("agents/gpu-B")).contains(AgentCredentials.hash(n2)));
        assertEquals(Optional.of("n1"), AgentCredentials.open(state).nodeOf(n1), "and read again from the documents");
    }

    @Test
    void aKeptHashThatCannotBeReadStopsTheLeaderNamingTheFileAndTheFix() throws Exception {
        AgentCredentials.open(state).issue("n1");
        Files.writeString(state.resolve("agents/n1"), "{\"sha256\": ");
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> AgentCredentials.open(state));
        assertTrue(e.getMessage().contains(state.resolve("agents/n1").toString()) && e.getMessage().contains("join that machine again"),
                e.getMessage());
    }
}
