package io.slurmlet.agent.system.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.Files;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxFilesTest {

    @TempDir
    Path dir;

    private final LinuxFiles files = new LinuxFiles();

    @Test
    void writesContentModeAndOwnerAtomicallyAndReadsThemBack() throws IOException {
        Path file = dir.resolve("etc/munge/munge.key");
        files.write(file, "secret".getBytes(StandardCharsets.UTF_8), "r--------", "root", "root");
        Files.Stat stat = files.stat(file).orElseThrow();
        assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), stat.content());
        assertEquals("r--------", stat.mode());
        assertEquals("root", stat.owner());
        assertEquals("root", stat.group());
        try (var left = java.nio.file.Files.list(file.getParent())) {
            assertEquals(1, left.count(), "no temporary file is left");
        }
    }

    @Test
    void aMissingFileIsEmpty() throws IOException {
        assertEquals(Optional.empty(), files.stat(dir.resolve("nothing")));
    }

    @Test
    void anUnknownOwnerChangesNothing() throws IOException {
        Path file = dir.resolve("f");
        files.write(file, new byte[] {1}, "rw-r--r--", "root", "root");
        assertThrows(
                IOException.class,
                () -> files.write(file, new byte[] {2}, "rw-r--r--", "no-such-user-slurmlet", "root"));
        assertArrayEquals(new byte[] {1}, files.stat(file).orElseThrow().content());
        assertTrue(files.stat(file).isPresent());
    }
}
