package io.slurmlet.agent.store;

import io.slurmlet.agent.system.AtomicFile;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private static final Logger LOG = Logger.getLogger(FileStore.class);
    /** A key is a file name of the state directory, or one of a collection's folder: never a path out of it. */
    private static final Pattern DOCUMENT = Pattern.compile("[a-z][a-z0-9_-]*(\\.[a-z]+)?");
    private static final Pattern FOLDER = Pattern.compile("[a-z][a-z0-9_-]*");
    /** A member of a collection: a node's name as Slurm takes it (letters, digits, _ . -, not starting with . or -). */
    private static final Pattern MEMBER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    /** A member's temporary file ({@link AtomicFile}'s name: the target's, the mark, 12 hex digits), never a member. */
    private static final Pattern LEFTOVER = Pattern.compile("(" + MEMBER.pattern() + ")" + Pattern.quote(AtomicFile.TEMP_MARK)
            + "[0-9a-f]{12}");

    private final Path dir;
    private final Map<String, Long> versions = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /** Guards {@link #revision} and the order of the watchers' deliveries. */
    private final Object order = new Object();
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
        removeLeftovers(stateDir, DOCUMENT);
        return new FileStore(stateDir);
    }

    private static void removeLeftovers(Path folder, Pattern names) throws IOException {
        try (var files = Files.list(folder)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                int mark = name.indexOf(AtomicFile.TEMP_MARK);
                if (mark > 0 && names.matcher(name.substring(0, mark)).matches()) {
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
        if (!FOLDER.matcher(folder).matches()) {
            throw new IllegalArgumentException("not a collection of the leader's state: " + folder);
        }
        Path path = dir.resolve(folder);
        Map<String, Versioned> members = new TreeMap<>();
        try {
            if (!Files.isDirectory(path)) {
                return members;
            }
            try (var files = Files.list(path)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    String name = p.getFileName().toString();
                    Matcher leftover = LEFTOVER.matcher(name);
                    if (leftover.matches()) {
                        // What an interrupted write of that member left: a write under way holds the
                        // member's lock until its temporary file is renamed or removed.
                        synchronized (lock(folder + "/" + leftover.group(1))) {
                            Files.deleteIfExists(p);
                        }
                    } else if (MEMBER.matcher(name).matches()) {
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
        watchers.add(listener);
        return () -> watchers.remove(listener);
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
            delivery.execute(() -> {
                for (Consumer<String> w : watchers) {
                    try {
                        w.accept(key);
                    } catch (RuntimeException e) {
                        LOG.errorf(e, "a watcher of the leader's state failed on %s: %s", key, e.getMessage());
                    }
                }
            });
            return version;
        }
    }

    private Object lock(String key) {
        return locks.computeIfAbsent(key, k -> new Object());
    }

    private Path file(String key) {
        int slash = key.indexOf('/');
        if (slash < 0 ? DOCUMENT.matcher(key).matches()
                : FOLDER.matcher(key.substring(0, slash)).matches() && MEMBER.matcher(key.substring(slash + 1)).matches()
                && !LEFTOVER.matcher(key.substring(slash + 1)).matches()) {
            return dir.resolve(key);
        }
        throw new IllegalArgumentException("not a key of the leader's state: " + key);
    }
}
