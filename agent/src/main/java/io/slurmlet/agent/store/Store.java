package io.slurmlet.agent.store;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * The leader's durable state: documents by key, each with the version it was last written at.
 * A write names the version it was made from (compare-and-put): when the document changed since,
 * nothing is written, so two writers never overwrite each other silently. Every change is durable
 * before the write returns, and then heard by every watcher.
 *
 * <p>{@link FileStore}, a folder of files, is the embedded default (one leader). A store on an
 * existing engine implements these methods: etcd's transactions compare a key's mod revision
 * and its watches deliver changes in order, as this interface asks.
 */
public interface Store {

    /** A document and the version it was read at; versions of one store only rise. */
    record Versioned(byte[] value, long version) {}

    /** What {@code key} holds now; empty when it holds nothing. */
    Optional<Versioned> get(String key) throws StorageException;

    /**
     * Writes {@code value} under {@code key} if its version is still {@code expected}.
     *
     * @param expected the version read; {@link #ABSENT} for a key that held nothing
     * @return the new version once durable; empty when the key had another version (nothing written)
     */
    OptionalLong put(String key, byte[] value, long expected) throws StorageException;

    /**
     * Every key of {@code folder} (a collection: {@code inventory} holds {@code inventory/gpu001},
     * one document a machine) with what it holds, by key. A collection's members are written one at
     * a time, so a change costs the size of what changed, not of the collection: etcd lists them by
     * a key prefix.
     */
    Map<String, Versioned> list(String folder) throws StorageException;

    /** Removes {@code key} if its version is still {@code expected}; says whether it did (a key already absent: true). */
    boolean delete(String key, long expected) throws StorageException;

    /**
     * Hands the key of every change, once durable, to {@code listener}, in the order of the
     * changes, on a thread of the store's own: a slow watcher delays other watchers, never a writer.
     * A typed view that keeps a copy sets it under the lock it writes and reads with, so a watcher
     * that reads the view after hearing of a change sees that change.
     *
     * @return what ends the watch
     */
    Runnable watch(Consumer<String> listener);

    /** The version of a key that holds nothing. */
    long ABSENT = 0;

    /** Where {@code key} is kept, for errors an admin acts on: a file's path, an engine's key. */
    String where(String key);

    /**
     * Why the store cannot be used now (an engine that does not answer), for the leader's readiness;
     * empty when it can. Cheap: at most one short request.
     */
    default Optional<String> unreachable() {
        return Optional.empty();
    }
}
