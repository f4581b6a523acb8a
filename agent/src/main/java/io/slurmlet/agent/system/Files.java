package io.slurmlet.agent.system;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The machine's files, as the reconcile steps change them: every write is atomic (temp file,
 * fsync, rename, fsync of the folder), with the mode and owner given, so no file is ever half
 * written and a crash leaves the old content or the new.
 */
public interface Files {

    /** A file as it is now. */
    record Stat(byte[] content, String mode, String owner, String group) {}

    /** The file's content, mode (as {@code rw-r--r--}) and owner; empty when it does not exist. */
    Optional<Stat> stat(Path path) throws IOException;

    /** Replaces (or makes) the file with exactly this content, mode and owner, atomically. */
    void write(Path path, byte[] content, String mode, String owner, String group) throws IOException;

    /** Removes the file if it exists. */
    void delete(Path path) throws IOException;
}
