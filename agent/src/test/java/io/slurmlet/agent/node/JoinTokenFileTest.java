package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JoinTokenFileTest {

    static final String TOKEN = "4k2j9x0a." + "s".repeat(43);

    @TempDir
    Path dir;

    Path file(String text, String mode) throws IOException {
        Path f = dir.resolve("join-token");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void theTokenIsReadFromAnOwnerOnlyFileAndForgottenOnceJoined() throws Exception {
        Path f = file(TOKEN + "\n", "rw-------");
        assertEquals(Optional.of(TOKEN), JoinTokenFile.read(f));
        assertTrue(JoinTokenFile.forget(f));
        assertFalse(Files.exists(f), "a joined machine keeps no join token");
        assertEquals(Optional.empty(), JoinTokenFile.read(f));
        assertFalse(JoinTokenFile.forget(f));
    }

    @Test
    void aTokenOthersCouldReadIsRefusedAndNamesTheFix() throws Exception {
        Path f = file(TOKEN + "\n", "rw-r--r--");
        IOException e = assertThrows(IOException.class, () -> JoinTokenFile.read(f));
        assertTrue(
                e.getMessage().startsWith(f + " is readable by others than the agent's user (owner uid "),
                e.getMessage());
        assertTrue(
                e.getMessage().contains("mode rw-r--r--") && e.getMessage().contains("ctl slurm join-token revoke"),
                e.getMessage());
        assertFalse(e.getMessage().contains(TOKEN), "never the token itself");
    }

    @Test
    void aFileThatHoldsNoTokenOrIsALinkIsSaidSoWithoutItsText() throws Exception {
        Path f = file("SLURMLET_NODE_JOIN_TOKEN=" + TOKEN + "\n", "rw-------");
        IOException e = assertThrows(IOException.class, () -> JoinTokenFile.read(f));
        assertTrue(e.getMessage().contains("does not hold a join token"), e.getMessage());
        assertFalse(e.getMessage().contains(TOKEN), e.getMessage());
        Files.delete(f);
        Path elsewhere = file(TOKEN, "rw-------").resolveSibling("elsewhere");
        Files.move(dir.resolve("join-token"), elsewhere);
        Files.createSymbolicLink(dir.resolve("join-token"), elsewhere);
        IOException l = assertThrows(IOException.class, () -> JoinTokenFile.read(dir.resolve("join-token")));
        assertTrue(l.getMessage().contains("is not a plain file"), l.getMessage());
    }
}
