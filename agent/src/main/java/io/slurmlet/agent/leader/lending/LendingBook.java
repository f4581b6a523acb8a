package io.slurmlet.agent.leader.lending;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.store.Document;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Every node's lending record, which nodes slurmctld has seen, and the memory classes slurm.conf
 * ever had partitions for, on disk ({@code lending.json}, written atomically on every change): a
 * leader restarted in the middle of a transition carries on where it was, and never plans a
 * slurm.conf without a partition slurmctld's jobs may name.
 */
public final class LendingBook {

    public static final String FILE_NAME = "lending.json";

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static LendingBook open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /** The file's shape. */
    @RegisterForReflection
    record Stored(@JsonProperty("nodes") Map<String, LendingRecord> nodes,
                  @JsonProperty("known_to_slurm") Set<String> knownToSlurm,
                  @JsonProperty("memory_classes") Set<Long> memoryClasses) {
        Stored {
            nodes = nodes == null ? Map.of() : nodes;
            knownToSlurm = knownToSlurm == null ? Set.of() : knownToSlurm;
            memoryClasses = memoryClasses == null ? Set.of() : memoryClasses;
        }
    }

    private final Document<Stored> file;
    private Map<String, LendingRecord> nodes;
    private Set<String> known;
    private Set<Long> classes;

    private LendingBook(Document<Stored> file, Stored stored) {
        this.file = file;
        this.nodes = new TreeMap<>(stored.nodes());
        this.known = new TreeSet<>(stored.knownToSlurm());
        this.classes = new TreeSet<>(stored.memoryClasses());
    }

    public static LendingBook open(Store store) throws IOException {
        Document<Stored> file = Document.in(store, FILE_NAME, new com.fasterxml.jackson.core.type.TypeReference<>() { });
        return new LendingBook(file, file.read(() -> new Stored(Map.of(), Set.of(), Set.of()), "the nodes' lending",
                "restore it from a backup; without it slurmlet cannot tell which nodes are being reclaimed"));
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
        return new Planner.Lent(lent, reclaiming, known, Planner.leaving(settings, underWay(), known, inventory), classes);
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
        file.write(new Stored(nodes, known, next));
        classes = next;
        return true;
    }

    /** Stores {@code record} if it differs from the one kept; says whether it did. */
    public synchronized boolean put(LendingRecord record) throws IOException {
        return putAll(List.of(record)) > 0;
    }

    /**
     * Stores each of {@code records} that differs from the one kept, in one write (the lending engine's
     * look at every node: a cluster's first look at ten thousand nodes is one write, not ten thousand
     * of a growing file); says how many differed. All or none: a failed write stores none.
     */
    public synchronized int putAll(java.util.Collection<LendingRecord> records) throws IOException {
        Map<String, LendingRecord> next = null;
        int changed = 0;
        for (LendingRecord record : records) {
            if (!record.equals((next == null ? nodes : next).get(record.node()))) {
                next = next == null ? new TreeMap<>(nodes) : next;
                next.put(record.node(), record);
                changed++;
            }
        }
        if (next != null) {
            save(next, known);
            nodes = next;
        }
        return changed;
    }

    /** Notes nodes slurmctld has a record of; says whether any was new. */
    public synchronized boolean known(List<String> seen) throws IOException {
        if (known.containsAll(seen)) {
            return false;
        }
        Set<String> next = new TreeSet<>(known);
        next.addAll(seen);
        save(nodes, next);
        known = next;
        return true;
    }

    private void save(Map<String, LendingRecord> n, Set<String> k) throws IOException {
        file.write(new Stored(n, k, classes));
    }
}
