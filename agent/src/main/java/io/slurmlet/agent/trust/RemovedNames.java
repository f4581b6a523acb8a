package io.slurmlet.agent.trust;

import io.slurmlet.agent.store.Folder;
import io.slurmlet.agent.store.Store;
import io.slurmlet.agent.trust.AgentCredentials.Removal;
import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The names of the machines an admin removed, refused until one allows them again: one document a
 * name ({@code removed/NODE}), each written before it is remembered. {@link AgentCredentials}
 * guards it with its lock, so a join never slips in between a removal's check and its write.
 */
final class RemovedNames {

    /** Each removed machine's document. */
    private final Folder<Removal> folder;
    /** Each removed name to its removal. */
    private final Map<String, Removal> removals = new TreeMap<>();
    /** Each removed name, lower-cased, to the name removed. */
    private final Map<String, String> byLowerName = new HashMap<>();

    RemovedNames(Store store) {
        this.folder = new Folder<>(store, AgentCredentials.REMOVED_FOLDER, Removal.class);
    }

    /** Reads every removal the store keeps. */
    void load() throws IOException {
        folder.readAll("the removal", "remove that file to let that machine join again")
                .forEach(this::remember);
    }

    /** Removes {@code node}: durable before it is remembered. */
    void put(String node, Removal removal) throws IOException {
        folder.put(node, removal);
        remember(node, removal);
    }

    /** The removal of {@code node} as it was removed (case and all); empty when it was not. */
    Optional<Removal> of(String node) {
        return Optional.ofNullable(removals.get(node));
    }

    /** The name removed that is {@code node} but for case; empty when none is. */
    Optional<String> as(String node) {
        return Optional.ofNullable(byLowerName.get(AgentCredentials.lower(node)));
    }

    /** Lets the name {@code node} (in any case) join again: the name as it was removed; empty when it was not. */
    Optional<String> allow(String node) throws IOException {
        Optional<String> removed = as(node);
        if (removed.isPresent()) {
            folder.delete(removed.get());
            removals.remove(removed.get());
            byLowerName.remove(AgentCredentials.lower(removed.get()));
        }
        return removed;
    }

    /** Every name removed and not allowed again, in order. */
    SortedMap<String, Removal> all() {
        return Collections.unmodifiableSortedMap(new TreeMap<>(removals));
    }

    private void remember(String node, Removal removal) {
        removals.put(node, removal);
        byLowerName.put(AgentCredentials.lower(node), node);
    }
}
