package io.slurmlet.agent.system;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads the machine's own description: {@code /proc}, {@code /sys}, {@code /etc/os-release}.
 * Read-only; paths are the machine's absolute paths (as {@code /proc/cpuinfo}), which an
 * implementation may place under a root folder so that tests can stand in a made-up machine.
 */
public interface HostFiles {

    /**
     * The text of the file at {@code path}, decoded as UTF-8; empty when there is no such file.
     *
     * @throws java.io.UncheckedIOException when it exists but cannot be read (naming the path)
     */
    Optional<String> read(Path path);

    /**
     * The bytes of the file at {@code path}, as they are (a program, a plugin); empty when there is no
     * such file.
     *
     * @throws java.io.UncheckedIOException when it exists but cannot be read (naming the path)
     */
    Optional<byte[]> bytes(Path path);

    /**
     * The entries of the folder {@code dir}, as machine paths, sorted by name; empty when there is
     * no such folder.
     *
     * @throws java.io.UncheckedIOException when it exists but cannot be listed (naming the path)
     */
    List<Path> list(Path dir);
}
