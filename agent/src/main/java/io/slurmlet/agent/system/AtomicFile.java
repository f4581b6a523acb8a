package io.slurmlet.agent.system;

import io.slurmlet.model.settings.TemporaryFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Writes a file so that a crash at any moment leaves either the old content or the new, never a
 * mix: a temporary file in the same folder, fsync, rename over the target, fsync of the folder.
 * Once {@link #write} returns, the new content survives a power cut.
 */
public final class AtomicFile {

    /** Temporary files start with the target's name and this; a crash can leave one behind. */
    public static final String TEMP_MARK = TemporaryFiles.MARK;

    private static final SecureRandom RANDOM = new SecureRandom();
    /** The most bytes one write call hands the kernel. */
    static final int SLICE = 64 * 1024;

    private AtomicFile() {}

    /** Something done to the temporary file before it replaces the target, as setting its owner. */
    @FunctionalInterface
    public interface Prepare {
        void accept(Path temp) throws IOException;
    }

    public static void write(Path target, byte[] content, Set<PosixFilePermission> mode) throws IOException {
        write(target, content, mode, temp -> {});
    }

    public static void write(Path target, byte[] content, Set<PosixFilePermission> mode, Prepare prepare)
            throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Path temp =
                dir.resolve(target.getFileName() + TEMP_MARK + HexFormat.of().formatHex(randomBytes()));
        try {
            try (FileChannel ch = FileChannel.open(
                    temp,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(mode))) {
                // In slices: the JDK copies a heap buffer through a direct buffer of its size, which
                // each thread keeps; whole-file writes of a megabyte on a leader's hundreds of threads
                // ran it out of direct memory (OutOfMemoryError, bench/README.md).
                for (int off = 0; off < content.length; off += SLICE) {
                    ByteBuffer buf = ByteBuffer.wrap(content, off, Math.min(SLICE, content.length - off));
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                }
                ch.force(true);
            }
            prepare.accept(temp);
            // The umask may have narrowed the mode given at creation; chown may have cleared set-id bits.
            Files.setPosixFilePermissions(temp, mode);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        syncDirectory(dir);
    }

    /** Makes a rename or a creation in {@code dir} durable. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Removes the temporary files an interrupted {@link #write} of {@code target} left behind. */
    public static void removeLeftovers(Path target) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        String prefix = target.getFileName() + TEMP_MARK;
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (p.getFileName().toString().startsWith(prefix)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Makes {@code dir} (and its parents) if missing, and leaves it readable by its owner only. */
    public static void ensurePrivateDirectory(Path dir) throws IOException {
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new IOException(dir + " exists and is not a folder", e);
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[TemporaryFiles.RANDOM_BYTES];
        RANDOM.nextBytes(b);
        return b;
    }
}
