package io.slurmlet.agent.leader;

import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.model.facts.FactsCheck;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every agent reported about its machine, by node name: what the planner makes plans from.
 * Kept in the state directory, written atomically, so a restarted leader plans at once.
 */
public final class Inventory {

    public static final String FILE_NAME = "inventory.json";
    private static final Logger LOG = Logger.getLogger(Inventory.class);

    private final Document<Map<String, NodeFacts>> file;
    private Map<String, NodeFacts> facts;

    private Inventory(Document<Map<String, NodeFacts>> file, Map<String, NodeFacts> facts) {
        this.file = file;
        this.facts = facts;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static Inventory open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /**
     * The inventory kept in {@code store}. Facts stored there that {@link FactsCheck} refuses
     * (kept by a slurmlet before it checked them) are left out with a warning: the machine reports
     * again within a pass, and one machine's facts can never stop every plan.
     */
    public static Inventory open(Store store) throws IOException {
        Document<Map<String, NodeFacts>> file = Document.in(store, FILE_NAME, new TypeReference<>() { });
        Map<String, NodeFacts> kept = new TreeMap<>();
        file.read(Map::of, "the node inventory", "remove it and the agents report again").forEach((node, facts) -> {
            List<Problem> problems = FactsCheck.problems(node, facts);
            if (problems.isEmpty()) {
                kept.put(node, facts);
            } else {
                LOG.warnf("%s: the facts kept for %s are left out until it reports again: %s", file.where(), Text.quote(node), problems);
            }
        });
        return new Inventory(file, kept);
    }

    /** Every machine's facts, by name. */
    public synchronized Map<String, NodeFacts> all() {
        return Map.copyOf(facts);
    }

    /** Stores what a machine reported; says whether it differs from what was known. */
    public boolean report(NodeFacts reported) throws IOException {
        return store(reported);
    }

    /** Forgets {@code node}'s facts (a machine removed); says whether there were any. */
    public boolean forget(String node) throws IOException {
        boolean forgotten;
        synchronized (this) {
            forgotten = facts.containsKey(node);
            if (forgotten) {
                Map<String, NodeFacts> next = new TreeMap<>(facts);
                next.remove(node);
                file.write(next);
                facts = next;
            }
        }
        return forgotten;
    }

    private synchronized boolean store(NodeFacts reported) throws IOException {
        if (reported.equals(facts.get(reported.name()))) {
            return false;
        }
        Map<String, NodeFacts> next = new TreeMap<>(facts);
        next.put(reported.name(), reported);
        file.write(next);
        facts = next;
        return true;
    }
}
