package io.slurmlet.agent.store;

import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One of the leader's collections: a document a machine under a folder of the {@link Store}
 * ({@code inventory/gpu001}), each written with the version it was read or last written at. A
 * change costs the size of one machine's document, not of the cluster's, and a write over another
 * writer's change is refused, not lost. Different machines' documents may be written at once; the
 * order of one machine's writes is its owner's to keep.
 */
public final class Folder<T> {

    private final Store store;
    private final String name;
    private final Class<T> type;
    private final Map<String, Long> versions = new ConcurrentHashMap<>();

    public Folder(Store store, String name, Class<T> type) {
        this.store = store;
        this.name = name;
        this.type = type;
    }

    /** Whether {@code key} of a store is one of folder {@code name}'s documents. */
    public static boolean holds(String name, String key) {
        return key.startsWith(name + "/");
    }

    public String key(String machine) {
        return name + "/" + machine;
    }

    /** Where {@code machine}'s document is kept, for errors. */
    public String where(String machine) {
        return store.where(key(machine));
    }

    public String where() {
        return store.where(name);
    }

    /**
     * Every document, by machine, as the store holds it now; their versions are kept for the next
     * writes. One that cannot be read stops the read with what it is, where, and the fix.
     *
     * @param what what a document is, as {@code the facts}
     * @param fix  what an admin does when one cannot be read
     */
    public Map<String, T> readAll(String what, String fix) throws IOException {
        Map<String, T> read = new TreeMap<>();
        for (var entry : store.list(name).entrySet()) {
            String machine = entry.getKey().substring(name.length() + 1);
            try {
                read.put(machine, SettingsJson.STRICT.readValue(entry.getValue().value(), type));
            } catch (IOException e) {
                throw new IOException(
                        "cannot read %s of %s in %s (%s): %s"
                                .formatted(
                                        what,
                                        Text.quote(machine),
                                        store.where(entry.getKey()),
                                        e.getMessage().split("\n")[0],
                                        fix),
                        e);
            }
            versions.put(machine, entry.getValue().version());
        }
        return read;
    }

    /** Whether {@code machine} has a document, as last read or written. */
    public boolean has(String machine) {
        return versions.containsKey(machine);
    }

    /** Writes {@code machine}'s document over the version read or last written; durable when it returns. */
    public void put(String machine, T value) throws StorageException {
        var written = store.put(key(machine), SettingsJson.pretty(value), versions.getOrDefault(machine, Store.ABSENT));
        if (written.isEmpty()) {
            throw changed(machine, "written");
        }
        versions.put(machine, written.getAsLong());
    }

    /** Removes {@code machine}'s document (one already absent is removed). */
    public void delete(String machine) throws StorageException {
        if (!store.delete(key(machine), versions.getOrDefault(machine, Store.ABSENT))) {
            throw changed(machine, "removed");
        }
        versions.remove(machine);
    }

    /**
     * Writes {@code machine}'s document from a document an earlier slurmlet kept every machine in,
     * over whatever it holds. The caller removes the old document only once every machine is moved,
     * so a crash between leaves both, and the move is made again at the next start.
     *
     * @throws IllegalArgumentException when {@code machine} cannot be a key of the store
     */
    public void moveIn(String machine, T value) throws StorageException {
        String key = key(machine);
        long version = store.get(key).map(Store.Versioned::version).orElse(Store.ABSENT);
        if (store.put(key, SettingsJson.pretty(value), version).isEmpty()) {
            throw new StorageException(
                    "%s changed while it was moved there from an earlier slurmlet's one document: restart the agent"
                            .formatted(store.where(key)),
                    null);
        }
    }

    private StorageException changed(String machine, String done) {
        return new StorageException(
                "%s was changed by another writer since this leader read it; nothing was %s: "
                                .formatted(where(machine), done)
                        + "restart the agent so it reads it again",
                null);
    }
}
