package io.slurmlet.agent.store;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.api.SettingsJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Supplier;

/**
 * One of the leader's JSON files in its state directory (settings, inventory, accounts,
 * credentials, lending, plans): read once at start, after removing what an interrupted write
 * left; written atomically (temp, fsync, rename, fsync of the folder), root-only. A file that
 * cannot be read stops the leader with what it is and the fix, never a silent start from empty.
 */
public final class StateFile<T> {

    private final Path file;
    private final TypeReference<T> type;

    private StateFile(Path file, TypeReference<T> type) {
        this.file = file;
        this.type = type;
    }

    public static <T> StateFile<T> in(Path stateDir, String name, TypeReference<T> type) throws IOException {
        AtomicFile.ensurePrivateDirectory(stateDir);
        Path file = stateDir.resolve(name);
        AtomicFile.removeLeftovers(file);
        return new StateFile<>(file, type);
    }

    /**
     * What the file holds; {@code absent} when there is none yet.
     *
     * @param what what the file is, as {@code the node inventory}
     * @param fix  what an admin does when it cannot be read
     */
    public T read(Supplier<T> absent, String what, String fix) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return absent.get();
        }
        try {
            return SettingsJson.STRICT.readValue(bytes, type);
        } catch (IOException e) {
            throw new IOException("cannot read %s in %s (%s): %s".formatted(what, file, e.getMessage().split("\n")[0], fix), e);
        }
    }

    public void write(T value) throws StorageException {
        try {
            AtomicFile.write(file, SettingsJson.pretty(value), PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new StorageException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public Path path() {
        return file;
    }
}
