package io.slurmlet.agent.store;

import io.slurmlet.agent.system.AtomicFile;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The store as files in the leader's state directory, one per key ({@code settings.json},
 * {@code inventory.json}, …): written atomically (temp, fsync, rename, fsync of the folder),
 * root-only; what an interrupted write left is removed at open. Versions are this process's: a key
 * found on disk at open has version 1, and every write takes the next number of the store's one
 * counter. One process owns the folder (the leader's agent).
 */
public final class FileStore implements Store {

    private static final Logger LOG = Logger.getLogger(FileStore.class);
    /** A key is a file name of the state directory, never a path out of it. */
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9_-]*(\\.[a-z]+)?");

    private final Path dir;
    private final Map<String, Long> versions = new HashMap<>();
    private long revision = 1;
    private final List<Consumer<String>> watchers = new CopyOnWriteArrayList<>();
    private final ExecutorService delivery = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "slurmlet-store-watch");
        t.setDaemon(true);
        return t;
    });

    private FileStore(Path dir) {
        this.dir = dir;
    }

    /** The store in {@code stateDir}, made root-only; leftovers of interrupted writes are removed. */
    public static FileStore open(Path stateDir) throws IOException {
        AtomicFile.ensurePrivateDirectory(stateDir);
        try (var files = Files.list(stateDir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                int mark = name.indexOf(AtomicFile.TEMP_MARK);
                if (mark > 0 && KEY.matcher(name.substring(0, mark)).matches()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        return new FileStore(stateDir);
    }

    @Override
    public synchronized Optional<Versioned> get(String key) throws StorageException {
        Path file = file(key);
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

    @Override
    public OptionalLong put(String key, byte[] value, long expected) throws StorageException {
        Path file = file(key);
        long written;
        synchronized (this) {
            if (version(key) != expected) {
                return OptionalLong.empty();
            }
            try {
                AtomicFile.write(file, value, PosixFilePermissions.fromString("rw-------"));
            } catch (IOException e) {
                throw new StorageException("cannot write " + file + ": " + e.getMessage(), e);
            }
            written = ++revision;
            versions.put(key, written);
            changed(key); // queued under the lock: watchers hear the changes in the order of their versions
        }
        return OptionalLong.of(written);
    }

    @Override
    public boolean delete(String key, long expected) throws StorageException {
        Path file = file(key);
        synchronized (this) {
            long now = version(key);
            if (now == ABSENT) {
                return true;
            }
            if (now != expected) {
                return false;
            }
            try {
                Files.deleteIfExists(file);
                AtomicFile.syncDirectory(dir);
            } catch (IOException e) {
                throw new StorageException("cannot remove " + file + ": " + e.getMessage(), e);
            }
            versions.remove(key);
            revision++;
            changed(key);
        }
        return true;
    }

    @Override
    public Runnable watch(Consumer<String> listener) {
        watchers.add(listener);
        return () -> watchers.remove(listener);
    }

    @Override
    public String where(String key) {
        return file(key).toString();
    }

    /** The key's version now, from the disk for a key not yet read. */
    private long version(String key) throws StorageException {
        Long known = versions.get(key);
        if (known != null) {
            return known;
        }
        return get(key).map(Versioned::version).orElse(ABSENT);
    }

    private void changed(String key) {
        delivery.execute(() -> {
            for (Consumer<String> w : watchers) {
                try {
                    w.accept(key);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "a watcher of the leader's state failed on %s: %s", key, e.getMessage());
                }
            }
        });
    }

    private Path file(String key) {
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("not a key of the leader's state: " + key);
        }
        return dir.resolve(key);
    }
}
