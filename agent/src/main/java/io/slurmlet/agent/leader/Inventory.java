package io.slurmlet.agent.leader;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Folder;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.FactsCheck;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * What every agent reported about its machine, by node name: what the planner makes plans from.
 * Kept in the store one document a machine ({@code inventory/NODE}), so a report costs the size of
 * that machine's facts, not of the cluster's: ten thousand machines joining write ten thousand
 * small files, not ten thousand copies of a growing one. A restarted leader plans at once from it.
 */
public final class Inventory {

    /** The store's collection of the machines' facts: {@code inventory/gpu001}. */
    public static final String FOLDER = "inventory";
    /** Where slurmlet 0.1 kept every machine's facts in one document; moved into {@link #FOLDER} at open. */
    public static final String FILE_NAME = "inventory.json";

    private static final Logger LOG = Logger.getLogger(Inventory.class);

    /** The machines' documents; a machine's write holds {@link #locks}' entry. */
    private final Folder<NodeFacts> folder;
    /** Guarded by {@code this}. */
    private final Map<String, NodeFacts> facts;

    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /** What {@link #all} hands out until the next change; guarded by {@code this}. */
    private Map<String, NodeFacts> snapshot;
    /**
     * Reports share it, {@link #all} takes it alone: the store tells its watchers (the planner) of a
     * machine's file once it is durable, before the report has put the facts here, so a look at
     * the inventory waits for the reports under way and sees every change it may have heard of.
     */
    private final ReadWriteLock gate = new ReentrantReadWriteLock();

    private Inventory(Folder<NodeFacts> folder, Map<String, NodeFacts> facts) {
        this.folder = folder;
        this.facts = facts;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static Inventory open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /** Whether {@code key} of the store is a machine's facts. */
    public static boolean holds(String key) {
        return Folder.holds(FOLDER, key);
    }

    /**
     * The inventory kept in {@code store}. Facts stored there that {@link FactsCheck} refuses
     * (kept by a slurmlet before it checked them) are left out with a warning: the machine reports
     * again within a pass, and one machine's facts can never stop every plan. An
     * {@code inventory.json} of slurmlet 0.1 is moved into one document a machine first (each
     * written before the old one is removed, so a crash between leaves both, and the move is done
     * again at the next start).
     */
    public static Inventory open(Store store) throws IOException {
        Folder<NodeFacts> folder = new Folder<>(store, FOLDER, NodeFacts.class);
        moveOldDocument(store, folder);
        Map<String, NodeFacts> kept = new TreeMap<>();
        folder.readAll("the facts", "remove that file, and the machine reports them again")
                .forEach((node, read) -> {
                    List<Problem> problems = read.name().equals(node)
                            ? FactsCheck.problems(node, read)
                            : List.of(new Problem(
                                    "name",
                                    read.name(),
                                    "the facts in %s name another machine".formatted(folder.where(node))));
                    if (problems.isEmpty()) {
                        kept.put(node, read);
                    } else {
                        LOG.warnf(
                                "%s: the facts kept for %s are left out until it reports again: %s",
                                folder.where(node), Text.quote(node), problems);
                    }
                });
        return new Inventory(folder, kept);
    }

    private static void moveOldDocument(Store store, Folder<NodeFacts> folder) throws IOException {
        var old = store.get(FILE_NAME);
        if (old.isEmpty()) {
            return;
        }
        Map<String, NodeFacts> facts;
        try {
            facts = SettingsJson.STRICT.readValue(old.get().value(), new TypeReference<Map<String, NodeFacts>>() {});
        } catch (IOException e) {
            throw new IOException(
                    "cannot read the node inventory in %s (%s): remove it and the agents report again"
                            .formatted(store.where(FILE_NAME), e.getMessage().split("\n")[0]),
                    e);
        }
        int moved = 0;
        for (var entry : facts.entrySet()) {
            try {
                folder.moveIn(entry.getKey(), entry.getValue());
                moved++;
            } catch (IllegalArgumentException e) {
                LOG.warnf(
                        "%s: the facts kept for %s are left out (not a name a machine can have); it reports again",
                        store.where(FILE_NAME), Text.quote(entry.getKey()));
            }
        }
        if (!store.delete(FILE_NAME, old.get().version())) {
            throw new StorageException(
                    "%s changed while its machines were moved into %s: restart the agent"
                            .formatted(store.where(FILE_NAME), folder.where()),
                    null);
        }
        LOG.infof(
                "moved the facts of %d machines from %s into one file a machine in %s",
                moved, store.where(FILE_NAME), folder.where());
    }

    /** Every machine's facts, by name, with every report whose file is written. */
    public Map<String, NodeFacts> all() {
        gate.writeLock().lock();
        try {
            synchronized (this) {
                if (snapshot == null) {
                    snapshot = Map.copyOf(facts);
                }
                return snapshot;
            }
        } finally {
            gate.writeLock().unlock();
        }
    }

    /** What became of a report. */
    public enum Stored {
        /** Written: it differs from what was known. */
        CHANGED,
        /** The same as what was known: nothing written. */
        UNCHANGED,
        /** Its sender no longer holds a credential (removed meanwhile): nothing written. */
        REFUSED,
        /** It differs, but the machine's facts changed more often than its {@link FactsLimit} takes: nothing written. */
        LIMITED
    }

    /** Stores what a machine reported; says whether it differs from what was known. */
    public boolean report(NodeFacts reported) throws IOException {
        return report(reported, () -> true) == Stored.CHANGED;
    }

    /**
     * Stores what a machine reported if {@code stillJoined} says, when asked, that its sender still
     * holds its credential. It is asked under the machine's lock, which {@link #forget} takes too:
     * a removal revokes the credential and then forgets the facts, so a report checked before the
     * removal and written after it is refused, or written before the facts are forgotten; it never
     * puts a removed machine back (into slurm.conf, into an export's clients).
     */
    public Stored report(NodeFacts reported, BooleanSupplier stillJoined) throws IOException {
        return report(reported, stillJoined, FactsLimit.NONE);
    }

    /**
     * {@link #report(NodeFacts, java.util.function.BooleanSupplier)}, taking a change of facts the
     * leader holds only as often as {@code limit} says: a report of the same facts is never limited,
     * nor the first of a machine whose facts are not held (new, or removed and allowed again), which
     * is not counted either.
     */
    public Stored report(NodeFacts reported, BooleanSupplier stillJoined, FactsLimit limit) throws IOException {
        String node = reported.name();
        synchronized (lock(node)) {
            if (!stillJoined.getAsBoolean()) {
                return Stored.REFUSED;
            }
            boolean held;
            synchronized (this) {
                NodeFacts known = facts.get(node);
                if (reported.equals(known)) {
                    return Stored.UNCHANGED;
                }
                held = known != null;
            }
            if (held && !limit.wait(node).isZero()) {
                return Stored.LIMITED;
            }
            gate.readLock().lock();
            try {
                folder.put(node, reported);
                synchronized (this) {
                    facts.put(node, reported);
                    snapshot = null;
                }
            } finally {
                gate.readLock().unlock();
            }
            if (held) {
                limit.changed(node);
            }
            return Stored.CHANGED;
        }
    }

    /** Whether {@code node}'s facts are kept (also facts left out at open, whose document is still there). */
    public boolean has(String node) {
        synchronized (this) {
            return facts.containsKey(node) || folder.has(node);
        }
    }

    /** Forgets {@code node}'s facts (a machine removed); says whether there were any. */
    public boolean forget(String node) throws IOException {
        synchronized (lock(node)) {
            synchronized (this) {
                if (!facts.containsKey(node) && !folder.has(node)) {
                    return false;
                }
            }
            gate.readLock().lock();
            try {
                folder.delete(node);
                synchronized (this) {
                    boolean had = facts.remove(node) != null;
                    snapshot = null;
                    return had;
                }
            } finally {
                gate.readLock().unlock();
            }
        }
    }

    private Object lock(String node) {
        return locks.computeIfAbsent(node, n -> new Object());
    }
}
