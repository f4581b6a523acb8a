package io.slurmlet.agent.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenFileTest {

    @TempDir
    Path state;

    @Test
    void madeAtFirstStartIntoARootOnlyFileAndKeptAfter() throws IOException {
        Path file = state.resolve("admin.token");
        TokenFile made = TokenFile.loadOrCreate(file);
        String text = Files.readString(file).strip();
        assertEquals(43, text.length(), "32 random bytes, base64url");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertTrue(made.matches(text));
        TokenFile again = TokenFile.loadOrCreate(file);
        assertTrue(again.matches(text + "\n"));
        assertEquals(text, Files.readString(file).strip());
    }

    @Test
    void onlyTheExactTokenMatches() throws IOException {
        TokenFile token = TokenFile.loadOrCreate(state.resolve("admin.token"));
        String text = Files.readString(state.resolve("admin.token")).strip();
        assertFalse(token.matches(null));
        assertFalse(token.matches(""));
        assertFalse(token.matches(text.substring(1)));
        assertFalse(token.matches(text + "x"));
    }

    @Test
    void neverShownByToString() throws IOException {
        TokenFile token = TokenFile.loadOrCreate(state.resolve("admin.token"));
        assertFalse(token.toString()
                .contains(Files.readString(state.resolve("admin.token")).strip()));
    }

    @Test
    void aTooShortTokenIsRefusedWithTheFix() throws IOException {
        Path file = state.resolve("admin.token");
        Files.writeString(file, "short\n");
        IOException e = assertThrows(IOException.class, () -> TokenFile.loadOrCreate(file));
        assertEquals(
                "the token in " + file + " is shorter than 32 characters: remove the file and restart "
                        + "the agent to make a new one",
                e.getMessage());
    }
}
