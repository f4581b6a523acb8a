package io.slurmlet.agent.system.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxHostFilesTest {

    @TempDir
    Path root;

    @Test
    void readsMachinePathsUnderTheRoot() throws Exception {
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/os-release"), "ID=debian\n");
        LinuxHostFiles files = new LinuxHostFiles(root);
        assertEquals(Optional.of("ID=debian\n"), files.read(Path.of("/etc/os-release")));
        assertEquals(Optional.empty(), files.read(Path.of("/etc/missing")));
        assertEquals(Optional.empty(), files.read(Path.of("/no/such/folder/file")));
        // ".." cannot climb out of the root.
        assertEquals(Optional.of("ID=debian\n"), files.read(Path.of("/../../etc/os-release")));
    }

    @Test
    void listsAFolderAsMachinePathsSortedByName() throws Exception {
        Path cpus = Files.createDirectories(root.resolve("sys/devices/system/cpu"));
        for (String d : List.of("cpu1", "cpu0", "online", "cpufreq")) {
            Files.createDirectories(cpus.resolve(d));
        }
        LinuxHostFiles files = new LinuxHostFiles(root);
        assertEquals(
                List.of(
                        Path.of("/sys/devices/system/cpu/cpu0"),
                        Path.of("/sys/devices/system/cpu/cpu1"),
                        Path.of("/sys/devices/system/cpu/cpufreq"),
                        Path.of("/sys/devices/system/cpu/online")),
                files.list(Path.of("/sys/devices/system/cpu")));
        assertEquals(List.of(), files.list(Path.of("/sys/missing")));
    }

    @Test
    void aFileThatCannotBeReadIsAnErrorThatNamesIt() throws Exception {
        // Root reads any file whatever its mode: a folder where a file should be cannot be read by anyone.
        Path notAFile = Files.createDirectories(root.resolve("etc/os-release"));
        UncheckedIOException e = assertThrows(
                UncheckedIOException.class, () -> new LinuxHostFiles(root).read(Path.of("/etc/os-release")));
        assertTrue(e.getMessage().contains(notAFile.toString()), e.getMessage());
    }

    @Test
    void readsTheRealProc() {
        String cpuinfo = new LinuxHostFiles().read(Path.of("/proc/cpuinfo")).orElseThrow();
        assertTrue(cpuinfo.contains("processor"), cpuinfo);
    }

    @Test
    void relativePathsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LinuxHostFiles(root).read(Path.of("etc/os-release")));
    }
}
