package io.slurmlet.agent.store;

import io.slurmlet.agent.system.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;

/**
 * The store as files in the leader's state directory, one per key ({@code settings.json},
 * {@code inventory/gpu001}, …): written atomically (temp, fsync, rename, fsync of the folder),
 * root-only; what an interrupted write left is removed at open (in a collection's folder, when
 * it is listed). Versions are this process's: a key found on disk has version 1 when first
 * read, and every write takes the next number of the store's one counter.
 *
 * <p>Writes of different keys go on at once (each holds its key's lock while it writes and
 * fsyncs, and the store's lock only to take its version): ten thousand machines reporting their
 * facts together share the disk's journal commits rather than wait in one line. One process owns
 * the folder (the leader's agent).
 */
public final class FileStore implements Store {

    private final Path dir;
    private final Map<String, Long> versions = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /** Guards {@link #revision} and the order of the watchers' deliveries. */
    private final Object order = new Object();

    private long revision = 1;
    private final Watchers watchers = new Watchers();

    private FileStore(Path dir) {
        this.dir = dir;
    }

    /** The store in {@code stateDir}, made root-only; leftovers of interrupted writes are removed. */
    public static FileStore open(Path stateDir) throws IOException {
        AtomicFile.ensurePrivateDirectory(stateDir);
        removeLeftovers(stateDir);
        return new FileStore(stateDir);
    }

    /** Removes the temporary files an interrupted write of a document left in the state directory. */
    private static void removeLeftovers(Path folder) throws IOException {
        try (var files = Files.list(folder)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                int mark = name.indexOf(AtomicFile.TEMP_MARK);
                if (mark > 0 && Keys.DOCUMENT.matcher(name.substring(0, mark)).matches()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Override
    public Optional<Versioned> get(String key) throws StorageException {
        Path file = file(key);
        synchronized (lock(key)) {
            try {
                byte[] bytes = Files.readAllBytes(file);
                return Optional.of(new Versioned(bytes, versions.computeIfAbsent(key, k -> 1L)));
            } catch (NoSuchFileException e) {
                versions.remove(key);
                return Optional.empty();
            } catch (IOException e) {
                throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public Map<String, Versioned> list(String folder) throws StorageException {
        Path path = dir.resolve(Keys.checkedFolder(folder));
        Map<String, Versioned> members = new TreeMap<>();
        try {
            if (!Files.isDirectory(path)) {
                return members;
            }
            try (var files = Files.list(path)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    String name = p.getFileName().toString();
                    Matcher leftover = Keys.LEFTOVER.matcher(name);
                    if (leftover.matches()) {
                        // What an interrupted write of that member left: a write under way holds the
                        // member's lock until its temporary file is renamed or removed.
                        synchronized (lock(folder + "/" + leftover.group(1))) {
                            Files.deleteIfExists(p);
                        }
                    } else if (Keys.MEMBER.matcher(name).matches()) {
                        get(folder + "/" + name).ifPresent(v -> members.put(folder + "/" + name, v));
                    }
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot list " + path + ": " + e.getMessage(), e);
        }
        return members;
    }

    @Override
    public OptionalLong put(String key, byte[] value, long expected) throws StorageException {
        Path file = file(key);
        synchronized (lock(key)) {
            if (version(key) != expected) {
                return OptionalLong.empty();
            }
            try {
                Path folder = file.getParent();
                if (!folder.equals(dir) && !Files.isDirectory(folder)) {
                    AtomicFile.ensurePrivateDirectory(folder);
                    AtomicFile.syncDirectory(dir);
                }
                AtomicFile.write(file, value, PosixFilePermissions.fromString("rw-------"));
            } catch (IOException e) {
                throw new StorageException("cannot write " + file + ": " + e.getMessage(), e);
            }
            return OptionalLong.of(changed(key, true));
        }
    }

    @Override
    public boolean delete(String key, long expected) throws StorageException {
        Path file = file(key);
        synchronized (lock(key)) {
            long now = version(key);
            if (now == ABSENT) {
                return true;
            }
            if (now != expected) {
                return false;
            }
            try {
                Files.deleteIfExists(file);
                AtomicFile.syncDirectory(file.getParent());
            } catch (IOException e) {
                throw new StorageException("cannot remove " + file + ": " + e.getMessage(), e);
            }
            changed(key, false);
        }
        return true;
    }

    @Override
    public Runnable watch(Consumer<String> listener) {
        return watchers.add(listener);
    }

    @Override
    public String where(String key) {
        return file(key).toString();
    }

    /** The key's version now, from the disk for a key not yet read; under the key's lock. */
    private long version(String key) throws StorageException {
        Long known = versions.get(key);
        if (known != null) {
            return known;
        }
        return get(key).map(Versioned::version).orElse(ABSENT);
    }

    /**
     * Takes the next version for a change of {@code key} that is durable, and queues it for the
     * watchers under the same lock: they hear the changes in the order of their versions.
     */
    private long changed(String key, boolean written) {
        synchronized (order) {
            long version = ++revision;
            if (written) {
                versions.put(key, version);
            } else {
                versions.remove(key);
            }
            watchers.tell(key);
            return version;
        }
    }

    private Object lock(String key) {
        return locks.computeIfAbsent(key, k -> new Object());
    }

    private Path file(String key) {
        return dir.resolve(Keys.checked(key));
    }
}
