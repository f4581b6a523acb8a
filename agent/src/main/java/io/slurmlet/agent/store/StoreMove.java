package io.slurmlet.agent.store;

import io.slurmlet.agent.system.AtomicFile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves a file-store leader's state into another store (etcd), once, checked: every document and
 * every member of a collection is written where nothing was ({@link Store#ABSENT}), read back and
 * compared byte for byte; then the state folder gets {@value #MARK}, after which a leader on the
 * file store refuses to start (its files are no longer the state: another leader may have changed
 * etcd since). A store that already holds any of it is refused, so two moves never mix.
 *
 * <p>Moved: the documents the leader keeps in its store (settings, accounts, lending state, plans,
 * join tokens' hashes) and its collections of a document a machine (the inventory, the agents'
 * credential hashes, the machines removed, whose names stay refused, the nodes' lending records). Not moved, and kept in the state folder: the cluster CA's key, the munge
 * key and the admin token, which are secrets a store that others can read must not hold in the clear.
 */
public final class StoreMove {

    /** Written in the state folder once its store is moved: what it was moved to, and when. */
    public static final String MARK = "store-moved";
    /** The leader's documents in its store. */
    static final List<String> DOCUMENTS = List.of("settings.json", "accounts.json", "lending.json", "plans.json", "join-tokens.json",
            "agents.json");
    /** The leader's collections in its store. */
    static final List<String> COLLECTIONS = List.of("inventory", "agents", "removed", "lending");

    private StoreMove() {
    }

    /** What a move did: each key moved, with its size. */
    public record Moved(Map<String, Integer> keys, String to) {
        @Override
        public String toString() {
            int bytes = keys.values().stream().mapToInt(Integer::intValue).sum();
            return "moved %d keys (%d bytes) to %s, each read back the same".formatted(keys.size(), bytes, to);
        }
    }

    /**
     * Moves the file store in {@code stateDir} to {@code to}; throws, having changed nothing in the
     * state folder, when the file store cannot be moved or {@code to} already holds slurmlet's state.
     */
    public static Moved move(Path stateDir, Store to) throws IOException {
        Path mark = stateDir.resolve(MARK);
        if (Files.exists(mark)) {
            throw new IOException("%s was moved already (%s says: %s); a store is moved once".formatted(stateDir, mark,
                    Files.readString(mark, StandardCharsets.UTF_8).strip()));
        }
        if (Files.exists(stateDir.resolve("inventory.json"))) {
            throw new IOException(("%s holds inventory.json of slurmlet 0.1: start this version's agent on it once (it makes one "
                    + "document a machine of it), stop it, then move").formatted(stateDir));
        }
        FileStore from = FileStore.open(stateDir);
        Map<String, byte[]> found = held(from);
        if (!found.containsKey("settings.json")) {
            throw new IOException("%s holds no settings.json: not a leader's state folder (slurmlet.state-dir in agent.yaml names it)"
                    .formatted(stateDir));
        }
        List<String> there = List.copyOf(held(to).keySet());
        if (!there.isEmpty()) {
            throw new IOException(("%s already holds slurmlet's state (%s): a store is moved once. If that is no leader's (a try "
                    + "that stopped half way), remove it and move again").formatted(to.where(""),
                    String.join(", ", there.subList(0, Math.min(5, there.size()))) + (there.size() > 5 ? ", …" : "")));
        }
        Map<String, Integer> moved = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : found.entrySet()) {
            if (to.put(e.getKey(), e.getValue(), Store.ABSENT).isEmpty()) {
                throw new IOException("%s was written by someone else during the move: stop every other leader and move again"
                        .formatted(to.where(e.getKey())));
            }
            moved.put(e.getKey(), e.getValue().length);
        }
        for (Map.Entry<String, byte[]> e : found.entrySet()) {
            byte[] back = to.get(e.getKey()).map(Store.Versioned::value).orElse(null);
            if (back == null || !Arrays.equals(back, e.getValue())) {
                throw new IOException("%s does not read back what was moved (%s): the state folder is left as it was"
                        .formatted(to.where(e.getKey()), back == null ? "nothing there" : back.length + " bytes, not " + e.getValue().length));
            }
        }
        Moved done = new Moved(moved, to.where(""));
        AtomicFile.write(mark, ("moved to %s at %s: this folder's documents are no longer the leader's state\n".formatted(to.where(""),
                Instant.now())).getBytes(StandardCharsets.UTF_8), PosixFilePermissions.fromString("rw-------"));
        return done;
    }

    /**
     * {@code slurmlet-agent store-move}: moves this leader's file store into the etcd that agent.yaml
     * names ({@code slurmlet.leader.store.kind: etcd}), the agent being stopped (the launcher checks).
     * Prints what it moved, or why it did not, and exits 0, 1 (not moved) or 2 (agent.yaml says no etcd).
     */
    public static void main(String[] args) {
        System.exit(run(System.getenv().getOrDefault("QUARKUS_CONFIG_LOCATIONS", "/etc/slurmlet/agent.yaml"), System.out, System.err));
    }

    /** The command, from the agent's configuration at {@code where} and the SLURMLET_* variables; its exit status. */
    static int run(String where, java.io.PrintStream out, java.io.PrintStream err) {
        io.slurmlet.agent.config.AgentConfig config;
        try {
            // The agent's own reading of agent.yaml: its file (ordinal 250, as Quarkus's config locations), the SLURMLET_*
            // variables and system properties over it, and Quarkus's converters (5s, paths); no application.properties.
            io.smallrye.config.SmallRyeConfigBuilder builder = new io.smallrye.config.SmallRyeConfigBuilder()
                    .addSystemSources()
                    .withConverter(java.time.Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                    .withConverter(Path.class, 200, new io.quarkus.runtime.configuration.PathConverter())
                    .withMapping(io.slurmlet.agent.config.AgentConfig.class);
            if (Files.isRegularFile(Path.of(where))) {
                builder.withSources(new io.smallrye.config.source.yaml.YamlConfigSource(Path.of(where).toUri().toURL(), 250));
            }
            config = builder.build().getConfigMapping(io.slurmlet.agent.config.AgentConfig.class);
        } catch (IOException | RuntimeException e) {
            err.println("slurmlet-agent store-move: cannot read " + where + ": " + e.getMessage());
            return 2;
        }
        var store = config.leader().store();
        if (store.kind() != io.slurmlet.agent.config.AgentConfig.StoreConfig.Kind.ETCD) {
            err.println("slurmlet-agent store-move: " + where + " has slurmlet.leader.store.kind " + store.kind().name().toLowerCase()
                    + ": set it to etcd, with slurmlet.leader.store.etcd.endpoints and its TLS files, then move (the move writes there)");
            return 2;
        }
        var etcd = store.etcd();
        List<String> endpoints;
        try {
            endpoints = EtcdStore.endpoints(etcd);
        } catch (IllegalStateException e) {
            err.println("slurmlet-agent store-move: nothing moved: " + e.getMessage());
            return 2;
        }
        try (EtcdStore to = EtcdStore.connect(endpoints, etcd.caFile(), etcd.certFile(), etcd.keyFile(),
                etcd.prefix(), etcd.timeout())) {
            Moved moved = move(config.stateDir(), to);
            out.println("slurmlet-agent store-move: " + moved + "; start the agent: it uses etcd from now on");
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("slurmlet-agent store-move: nothing moved: " + e.getMessage());
            return 1;
        }
    }

    /** The leader's documents and collection members that {@code store} holds, by key. */
    private static Map<String, byte[]> held(Store store) throws IOException {
        Map<String, byte[]> held = new LinkedHashMap<>();
        for (String key : DOCUMENTS) {
            store.get(key).ifPresent(v -> held.put(key, v.value()));
        }
        for (String folder : COLLECTIONS) {
            store.list(folder).forEach((key, v) -> held.put(key, v.value()));
        }
        return held;
    }

    /** Refuses a file store whose state was moved to another store: its files are no longer the leader's state. */
    public static void refuseMoved(Path stateDir) throws IOException {
        Path mark = stateDir.resolve(MARK);
        if (Files.exists(mark)) {
            throw new IOException(("slurmlet.leader.store.kind is file, and %s says: %s. Set slurmlet.leader.store.kind: etcd "
                    + "(and its endpoints) in agent.yaml; or, to go back to these files as they were at the move, remove %s")
                    .formatted(mark, Files.readString(mark, StandardCharsets.UTF_8).strip(), mark));
        }
    }
}
