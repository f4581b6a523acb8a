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
        String kept = Files.readString(state.resolve(AgentCredentials.FILE_NAME));
        assertFalse(kept.contains(n1) || kept.contains(n2), "no credential in the state folder");

        AgentCredentials reopened = AgentCredentials.open(state);
        assertEquals(Optional.of("n2"), reopened.nodeOf(n2), "after a restart");
        assertTrue(reopened.revoke("n2"));
        assertEquals(Optional.empty(), reopened.nodeOf(n2));
        String again = reopened.issue("n1");
        assertEquals(Optional.empty(), reopened.nodeOf(n1), "a new credential replaces the old one");
        assertEquals(Optional.of("n1"), reopened.nodeOf(again));
    }
}
