package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.HostFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@link HostFiles} on the machine's file system, under a root folder: {@code /} on a real machine;
 * in tests and the local demo a folder holding its own {@code proc/}, {@code sys/} and {@code etc/},
 * so that {@code /proc/cpuinfo} is read from {@code <root>/proc/cpuinfo}.
 */
public final class LinuxHostFiles implements HostFiles {

    private final Path root;

    /** The machine's own files. */
    public LinuxHostFiles() {
        this(Path.of("/"));
    }

    public LinuxHostFiles(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public Optional<String> read(Path path) {
        return bytes(path).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    @Override
    public Optional<byte[]> bytes(Path path) {
        Path real = real(path);
        try {
            return Optional.of(Files.readAllBytes(real));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + real + ": " + e, e);
        }
    }

    @Override
    public List<Path> list(Path dir) {
        Path real = real(dir);
        try (Stream<Path> entries = Files.list(real)) {
            return entries.map(p -> dir.resolve(p.getFileName().toString()))
                    .sorted()
                    .toList();
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + real + ": " + e, e);
        }
    }

    /** Where the machine path {@code path} lies under the root. */
    Path real(Path path) {
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("a machine path must be absolute, as /proc/cpuinfo: " + path);
        }
        Path relative = path.getRoot().relativize(path.normalize());
        return root.resolve(relative);
    }
}
