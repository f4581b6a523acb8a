package io.slurmlet.agent.store;

import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.runtime.configuration.PathConverter;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.agent.trust.TokenFile;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.source.yaml.YamlConfigSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves a file-store leader's state into etcd, once, checked: every document and every member of a
 * collection is written where nothing was ({@link Store#ABSENT}), read back and compared byte for
 * byte; then the state folder gets {@value #MARK}, after which a leader on the file store refuses to
 * start (its files are no longer the state: another leader may have changed etcd since). A store that
 * already holds any of it is refused, so two moves never mix.
 *
 * <p>Moved: the documents the leader keeps in its store (settings, accounts, lending state, plans,
 * join tokens' hashes) and its collections of a document a machine (the inventory, the agents'
 * credential hashes, the machines removed, whose names stay refused, the nodes' lending records), and
 * the files an admin imported for the machines ({@code ctl slurm containers import}): each file's
 * parts and manifest, which the leader keeps in its store under the same keys on either kind
 * (leader.ContainerFiles), so a leader on etcd serves them as the file-store leader did.
 *
 * <p>And the cluster's secrets, the CA's certificate and key, the munge key and the admin token,
 * sealed with the site's key file ({@link SealedSecrets}, under {@value SealedSecrets#KEY}) and
 * opened again to be read back: a moved store always holds them, so whichever leader-eligible agent
 * leads first takes this folder's CA and munge key and never makes its own. Without a usable key file
 * nothing is moved.
 */
public final class StoreMove {

    /** Written in the state folder once its store is moved: what it was moved to, and when. */
    public static final String MARK = "store-moved";
    /** The leader's documents in its store. */
    static final List<String> DOCUMENTS =
            List.of("settings.json", "accounts.json", "lending.json", "plans.json", "join-tokens.json", "agents.json");
    /**
     * The leader's collections in its store; a container file's parts before its manifest, as the
     * leader writes them, so that no manifest is there before its parts.
     */
    static final List<String> COLLECTIONS =
            List.of("inventory", "agents", "removed", "lending", "container-parts", "container-files");

    private StoreMove() {}

    /** What a move did: each key moved, with its size; the secrets put there, sealed, by name. */
    public record Moved(Map<String, Integer> keys, List<String> secrets, String to) {
        @Override
        public String toString() {
            if (keys.isEmpty()) {
                return "put the cluster's %s into %s, sealed, which an earlier move left in the state folder; read back the same"
                        .formatted(String.join(", ", secrets), to);
            }
            int bytes = keys.values().stream().mapToInt(Integer::intValue).sum();
            return "moved %d keys (%d bytes) and the cluster's %s (sealed) to %s, each read back the same"
                    .formatted(keys.size(), bytes, String.join(", ", secrets), to);
        }
    }

    /**
     * Moves the file store in {@code stateDir}, and the cluster's secrets there and in
     * {@code adminToken}, sealed with {@code keyFile}, to {@code to}; throws, having changed nothing
     * in the state folder, when it cannot. A move refused before its first write leaves {@code to} as
     * it was: a key file missing or not a key, a secret missing, a folder that is no leader's, or
     * {@code to} holding slurmlet's state already.
     *
     * <p>A folder moved already, to {@code to}, whose secrets {@code to} lacks (a move by a slurmlet
     * that left them in the folder) gets only its secrets put there: no leader can lead that store
     * until they are.
     */
    public static Moved move(Path stateDir, Path adminToken, Path keyFile, EtcdStore to) throws IOException {
        Path mark = stateDir.resolve(MARK);
        if (Files.exists(mark)) {
            String said = Files.readString(mark, StandardCharsets.UTF_8).strip();
            if (said.contains("moved to " + to.where("") + " at ")
                    && to.reserved(SealedSecrets.KEY).isEmpty()
                    && to.get("settings.json").isPresent()) {
                SealedSecrets seal = SealedSecrets.withKeyFile(keyFile);
                return new Moved(Map.of(), putSecrets(seal, secrets(stateDir, adminToken), to), to.where(""));
            }
            throw new IOException(
                    "%s was moved already (%s says: %s); a store is moved once".formatted(stateDir, mark, said));
        }
        if (Files.exists(stateDir.resolve("inventory.json"))) {
            throw new IOException(
                    ("%s holds inventory.json of slurmlet 0.1: start this version's agent on it once (it makes one "
                                    + "document a machine of it), stop it, then move")
                            .formatted(stateDir));
        }
        SealedSecrets seal = SealedSecrets.withKeyFile(keyFile);
        FileStore from = FileStore.open(stateDir);
        Map<String, byte[]> found = held(from);
        if (!found.containsKey("settings.json")) {
            throw new IOException(
                    "%s holds no settings.json: not a leader's state folder (slurmlet.state-dir in agent.yaml names it)"
                            .formatted(stateDir));
        }
        Map<String, byte[]> secrets = secrets(stateDir, adminToken);
        List<String> there = new ArrayList<>(held(to).keySet());
        if (to.reserved(SealedSecrets.KEY).isPresent()) {
            there.add(0, SealedSecrets.KEY);
        }
        if (!there.isEmpty()) {
            throw new IOException(
                    ("%s already holds slurmlet's state (%s): a store is moved once. If that is no leader's (a try "
                                    + "that stopped half way), remove it and move again")
                            .formatted(
                                    to.where(""),
                                    String.join(", ", there.subList(0, Math.min(5, there.size())))
                                            + (there.size() > 5 ? ", …" : "")));
        }
        // The secrets first: from the first key on, a leader elected on this store finds the cluster's.
        List<String> sealed = putSecrets(seal, secrets, to);
        Map<String, Integer> moved = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : found.entrySet()) {
            if (to.put(e.getKey(), e.getValue(), Store.ABSENT).isEmpty()) {
                throw new IOException(
                        "%s was written by someone else during the move: stop every other leader and move again"
                                .formatted(to.where(e.getKey())));
            }
            moved.put(e.getKey(), e.getValue().length);
        }
        for (Map.Entry<String, byte[]> e : found.entrySet()) {
            byte[] back = to.get(e.getKey()).map(Store.Versioned::value).orElse(null);
            if (back == null || !Arrays.equals(back, e.getValue())) {
                throw new IOException("%s does not read back what was moved (%s): the state folder is left as it was"
                        .formatted(
                                to.where(e.getKey()),
                                back == null ? "nothing there" : back.length + " bytes, not " + e.getValue().length));
            }
        }
        Moved done = new Moved(moved, sealed, to.where(""));
        AtomicFile.write(
                mark,
                ("moved to %s at %s: this folder's documents are no longer the leader's state\n"
                                .formatted(to.where(""), Instant.now()))
                        .getBytes(StandardCharsets.UTF_8),
                PosixFilePermissions.fromString("rw-------"));
        return done;
    }

    /** The cluster's secrets by name, from their files; a folder that lacks one is refused, naming each missing file. */
    private static Map<String, byte[]> secrets(Path stateDir, Path adminToken) throws IOException {
        Map<String, Path> files = SealedSecrets.files(stateDir, adminToken);
        List<String> missing = files.values().stream()
                .filter(f -> !Files.isRegularFile(f))
                .map(Path::toString)
                .toList();
        if (!missing.isEmpty()) {
            throw new IOException(
                    ("%s lacks %s, of the cluster's secrets that the move puts into etcd, sealed: start the agent once "
                                    + "on this folder with the file store (it makes them at its first start as leader), stop it, then move; or, "
                                    + "if slurmlet.leader.admin-token-file names another file, name it in the agent.yaml the move reads")
                            .formatted(stateDir, String.join(", ", missing)));
        }
        Map<String, byte[]> secrets = new LinkedHashMap<>();
        for (Map.Entry<String, Path> file : files.entrySet()) {
            secrets.put(file.getKey(), Files.readAllBytes(file.getValue()));
        }
        // The munge key's last rotation, once there was one: the next leader keeps its number and moment.
        secrets.putAll(SealedSecrets.readOptional(stateDir));
        return secrets;
    }

    /** Puts {@code secrets} under {@value SealedSecrets#KEY} in {@code to}, sealed, and opens them again to read them back; their names. */
    private static List<String> putSecrets(SealedSecrets seal, Map<String, byte[]> secrets, EtcdStore to)
            throws IOException {
        String where = to.where(SealedSecrets.KEY);
        if (!to.createReserved(SealedSecrets.KEY, seal.seal(secrets, where))) {
            throw new IOException(
                    "%s was written by someone else during the move: stop every other leader and move again"
                            .formatted(where));
        }
        byte[] blob = to.reserved(SealedSecrets.KEY).orElse(null);
        Map<String, byte[]> back = blob == null ? Map.of() : seal.open(blob, where);
        for (Map.Entry<String, byte[]> e : secrets.entrySet()) {
            if (!Arrays.equals(back.get(e.getKey()), e.getValue())) {
                // Only whether it is there: a secret's bytes or size are never shown.
                throw new IOException("%s does not read back what was moved (%s %s): the state folder is left as it was"
                        .formatted(where, e.getKey(), back.containsKey(e.getKey()) ? "differs" : "is not there"));
            }
        }
        return List.copyOf(secrets.keySet());
    }

    /**
     * {@code slurmlet-agent store-move}: moves this leader's file store into the etcd that agent.yaml
     * names ({@code slurmlet.leader.store.kind: etcd}), the agent being stopped (the launcher checks).
     * Prints what it moved, or why it did not, and exits 0, 1 (not moved) or 2 (agent.yaml names no etcd
     * or no secrets key file).
     */
    public static void main(String[] args) {
        System.exit(run(
                System.getenv().getOrDefault("QUARKUS_CONFIG_LOCATIONS", "/etc/slurmlet/agent.yaml"),
                System.out,
                System.err));
    }

    /** The command, from the agent's configuration at {@code where} and the SLURMLET_* variables; its exit status. */
    static int run(String where, PrintStream out, PrintStream err) {
        AgentConfig config;
        try {
            // The agent's own reading of agent.yaml: its file (ordinal 250, as Quarkus's config locations), the
            // SLURMLET_*
            // variables and system properties over it, and Quarkus's converters (5s, paths); no application.properties.
            SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder()
                    .addSystemSources()
                    .withConverter(Duration.class, 200, new DurationConverter())
                    .withConverter(Path.class, 200, new PathConverter())
                    .withMapping(AgentConfig.class);
            if (Files.isRegularFile(Path.of(where))) {
                builder.withSources(new YamlConfigSource(Path.of(where).toUri().toURL(), 250));
            }
            config = builder.build().getConfigMapping(AgentConfig.class);
        } catch (IOException | RuntimeException e) {
            err.println("slurmlet-agent store-move: cannot read " + where + ": " + e.getMessage());
            return 2;
        }
        var store = config.leader().store();
        if (store.kind() != AgentConfig.StoreConfig.Kind.ETCD) {
            err.println(
                    "slurmlet-agent store-move: " + where + " has slurmlet.leader.store.kind "
                            + store.kind().name().toLowerCase()
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
        if (etcd.secretsKeyFile().isEmpty()) {
            err.println("slurmlet-agent store-move: nothing moved: " + where
                    + " sets no slurmlet.leader.store.etcd.secrets-key-file, "
                    + "which seals the cluster's CA, munge key and admin token in etcd: make one key file with 'openssl rand -hex 32 > "
                    + "/etc/slurmlet/etcd/secrets.key; chmod 600 /etc/slurmlet/etcd/secrets.key', name it there, copy it to every "
                    + "leader-eligible machine, then move");
            return 2;
        }
        Path adminToken =
                config.leader().adminTokenFile().orElse(config.stateDir().resolve(TokenFile.FILE_NAME));
        try (EtcdStore to = EtcdStore.connect(
                endpoints, etcd.caFile(), etcd.certFile(), etcd.keyFile(), etcd.prefix(), etcd.timeout())) {
            Moved moved =
                    move(config.stateDir(), adminToken, etcd.secretsKeyFile().get(), to);
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
            throw new IOException(
                    ("slurmlet.leader.store.kind is file, and %s says: %s. Set slurmlet.leader.store.kind: etcd "
                                    + "(and its endpoints) in agent.yaml; or, to go back to these files as they were at the move, remove %s")
                            .formatted(
                                    mark,
                                    Files.readString(mark, StandardCharsets.UTF_8)
                                            .strip(),
                                    mark));
        }
    }
}
