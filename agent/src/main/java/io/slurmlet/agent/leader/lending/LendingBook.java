package io.slurmlet.agent.leader.lending;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Folder;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * Every node's lending record, one document a node ({@code lending/NODE}, written on every change
 * of that node), and which nodes slurmctld has seen and the memory classes slurm.conf ever had
 * partitions for ({@code lending.json}): a leader restarted in the middle of a transition carries on
 * where it was, and never plans a slurm.conf without a partition slurmctld's jobs may name. A node
 * that never left the platform has no document. One document for every node (slurmlet before)
 * grew to 3 MB at 10,000 nodes, rewritten on each node's change, and past what etcd takes in one
 * request (bench/leader_load.py --store etcd).
 */
public final class LendingBook {

    public static final String FILE_NAME = "lending.json";
    /** The store's collection of the nodes' records: {@code lending/gpu001}. */
    public static final String FOLDER = "lending";

    private static final Logger LOG = Logger.getLogger(LendingBook.class);

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static LendingBook open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /** Whether {@code key} of the store is one of the lending book's. */
    public static boolean holds(String key) {
        return key.equals(FILE_NAME) || Folder.holds(FOLDER, key);
    }

    /** The file's shape; {@code nodes} is what slurmlet kept there before a document a node, moved out at open. */
    @RegisterForReflection
    record Stored(
            @JsonProperty("nodes") Map<String, LendingRecord> nodes,
            @JsonProperty("known_to_slurm") Set<String> knownToSlurm,
            @JsonProperty("memory_classes") Set<Long> memoryClasses) {
        Stored {
            nodes = nodes == null ? Map.of() : nodes;
            knownToSlurm = knownToSlurm == null ? Set.of() : knownToSlurm;
            memoryClasses = memoryClasses == null ? Set.of() : memoryClasses;
        }
    }

    private final Folder<LendingRecord> folder;
    private final Document<Stored> file;
    private final Map<String, LendingRecord> nodes;
    private Set<String> known;
    private Set<Long> classes;

    private LendingBook(Folder<LendingRecord> folder, Document<Stored> file, Stored stored) {
        this.folder = folder;
        this.file = file;
        this.nodes = new TreeMap<>();
        this.known = new TreeSet<>(stored.knownToSlurm());
        this.classes = new TreeSet<>(stored.memoryClasses());
    }

    /**
     * The book kept in {@code store}. The records of a {@code lending.json} of an earlier slurmlet
     * are moved into a document a node first, each written before the file is written without them,
     * so a crash between leaves both and the move is made again at the next start.
     */
    public static LendingBook open(Store store) throws IOException {
        Document<Stored> file = Document.in(store, FILE_NAME, new TypeReference<>() {});
        Stored stored = file.read(
                () -> new Stored(Map.of(), Set.of(), Set.of()),
                "the nodes' lending",
                "restore it from a backup; without it slurmlet cannot tell which nodes are being reclaimed");
        Folder<LendingRecord> folder = new Folder<>(store, FOLDER, LendingRecord.class);
        if (!stored.nodes().isEmpty()) {
            for (LendingRecord r : stored.nodes().values()) {
                folder.moveIn(r.node(), r);
            }
            file.write(new Stored(Map.of(), stored.knownToSlurm(), stored.memoryClasses()));
            LOG.infof(
                    "moved the lending records of %d nodes from %s into one file a node in %s",
                    stored.nodes().size(), store.where(FILE_NAME), folder.where());
        }
        LendingBook book = new LendingBook(folder, file, stored);
        var read = folder.readAll(
                "the lending record",
                "restore it from a backup; without it slurmlet cannot tell whether that node is being reclaimed");
        for (var entry : read.entrySet()) {
            if (!entry.getValue().node().equals(entry.getKey())) {
                throw new IOException("%s holds the lending record of %s: restore it from a backup"
                        .formatted(
                                folder.where(entry.getKey()),
                                Text.quote(entry.getValue().node())));
            }
            book.nodes.put(entry.getKey(), entry.getValue());
        }
        return book;
    }

    public synchronized Optional<LendingRecord> get(String node) {
        return Optional.ofNullable(nodes.get(node));
    }

    public synchronized Map<String, LendingRecord> all() {
        return Map.copyOf(nodes);
    }

    /** The nodes whose lending is under way: being lent, lent, or being reclaimed. */
    public synchronized Set<String> underWay() {
        Set<String> busy = new TreeSet<>();
        nodes.forEach((n, r) -> {
            if (r.phase() != Phase.PLATFORM) {
                busy.add(n);
            }
        });
        return busy;
    }

    /** Lending as the planner takes it, for {@code settings} (which nodes are leaving Slurm depends on them). */
    public synchronized Planner.Lent lent(SlurmSettings settings, Map<String, NodeFacts> inventory) {
        Set<String> lent = new TreeSet<>();
        Set<String> reclaiming = new TreeSet<>();
        nodes.forEach((n, r) -> {
            if (r.phase() == Phase.LENT) {
                lent.add(n);
            } else if (r.phase() == Phase.RECLAIMING) {
                reclaiming.add(n);
            }
        });
        return new Planner.Lent(
                lent, reclaiming, known, Planner.leaving(settings, underWay(), known, inventory), classes);
    }

    public synchronized Set<String> knownToSlurm() {
        return Set.copyOf(known);
    }

    /** The memory classes slurm.conf ever had partitions for (MiB per CPU). */
    public synchronized Set<Long> memoryClasses() {
        return Set.copyOf(classes);
    }

    /**
     * Notes memory classes slurm.conf is about to have partitions for, before a plan with them goes
     * out; says whether any was new. Never forgets one: a job submitted since may name it.
     */
    public synchronized boolean memoryClasses(Set<Long> planned) throws IOException {
        if (classes.containsAll(planned)) {
            return false;
        }
        Set<Long> next = new TreeSet<>(classes);
        next.addAll(planned);
        save(known, next);
        classes = next;
        return true;
    }

    /**
     * Stores {@code record} if it differs from the one kept (a node never lent, with nothing to say,
     * is kept as no document); says whether it did. Durable before it returns.
     */
    public synchronized boolean put(LendingRecord record) throws IOException {
        LendingRecord kept = nodes.get(record.node());
        if (record.equals(kept) || kept == null && untold(record)) {
            return false;
        }
        folder.put(record.node(), record);
        nodes.put(record.node(), record);
        return true;
    }

    /** A record that says no more than no record: the platform's, never moved, no wait, no error, no hook. */
    static boolean untold(LendingRecord r) {
        return r.phase() == Phase.PLATFORM
                && r.transitions().isEmpty()
                && r.waitingFor().isEmpty()
                && r.lastError().isEmpty()
                && r.hookOutput().isEmpty()
                && r.attempts() == 0
                && r.nextTry().isEmpty()
                && r.hookRunning().isEmpty();
    }

    /** Notes nodes slurmctld has a record of; says whether any was new. */
    public synchronized boolean known(List<String> seen) throws IOException {
        if (known.containsAll(seen)) {
            return false;
        }
        Set<String> next = new TreeSet<>(known);
        next.addAll(seen);
        save(next, classes);
        known = next;
        return true;
    }

    /** lending.json: the nodes slurmctld knows and the memory classes (each node's record is a document of its own). */
    private void save(Set<String> knownToSlurm, Set<Long> memoryClasses) throws IOException {
        file.write(new Stored(Map.of(), knownToSlurm, memoryClasses));
    }
}
