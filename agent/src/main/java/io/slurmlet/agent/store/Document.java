package io.slurmlet.agent.store;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * One of the leader's documents (settings, inventory, accounts, credentials, tokens, lending,
 * plans) as JSON under its key of the {@link Store}: read once at start, then written with the
 * version it was read or last written at, so a write over another writer's change is refused, not
 * lost. A document that cannot be read stops the leader with what it is and the fix, never a
 * silent start from empty.
 */
public final class Document<T> {

    private final Store store;
    private final String key;
    private final TypeReference<T> type;
    private long version = Store.ABSENT;

    private Document(Store store, String key, TypeReference<T> type) {
        this.store = store;
        this.key = key;
        this.type = type;
    }

    public static <T> Document<T> in(Store store, String key, TypeReference<T> type) {
        return new Document<>(store, key, type);
    }

    /**
     * What the document holds; {@code absent} when there is none yet.
     *
     * @param what what it is, as {@code the node inventory}
     * @param fix  what an admin does when it cannot be read
     */
    public synchronized T read(Supplier<T> absent, String what, String fix) throws IOException {
        var stored = store.get(key);
        if (stored.isEmpty()) {
            version = Store.ABSENT;
            return absent.get();
        }
        try {
            T value = SettingsJson.STRICT.readValue(stored.get().value(), type);
            version = stored.get().version();
            return value;
        } catch (IOException e) {
            throw new IOException(
                    "cannot read %s in %s (%s): %s"
                            .formatted(what, where(), e.getMessage().split("\n")[0], fix),
                    e);
        }
    }

    /** Writes {@code value} over what was read or last written; refused when someone else wrote it since. */
    public synchronized void write(T value) throws StorageException {
        var written = store.put(key, SettingsJson.pretty(value), version);
        if (written.isEmpty()) {
            throw new StorageException(
                    "%s was changed by another writer since this leader read it; nothing was written: "
                                    .formatted(where())
                            + "restart the agent so it reads it again",
                    null);
        }
        version = written.getAsLong();
    }

    public String key() {
        return key;
    }

    public String where() {
        return store.where(key);
    }
}
