package io.slurmlet.agent.trust;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Folder;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.SettingsJson;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * Each joined machine's own credential, which it presents on every call after joining. The leader
 * keeps only each credential's sha256, one document a machine ({@code agents/NODE}, root-only): a
 * copy of the state directory lets no one act as a machine, and a join writes that machine's few
 * bytes, not every machine's again (ten thousand joins rewrote a growing {@code agents.json} ten
 * thousand times: a sixth of the leader's CPU in bench/leader_load.py, and past etcd's request size
 * at that scale). A name that has joined cannot join again until an admin removes that machine
 * ({@code ctl slurm machines remove}), which revokes its credential.
 */
public final class AgentCredentials {

    /** The store's collection of the machines' credential hashes: {@code agents/gpu001}. */
    public static final String FOLDER = "agents";
    /** Where slurmlet kept every machine's hash in one document before; moved into {@link #FOLDER} at open. */
    public static final String FILE_NAME = "agents.json";
    private static final Logger LOG = Logger.getLogger(AgentCredentials.class);

    /** What a machine's document holds. */
    @RegisterForReflection
    record Kept(@JsonProperty("sha256") String sha256) { }

    private final Store store;
    /** Each machine's document. */
    private final Folder<Kept> folder;
    /** Each machine's hash; guarded by {@code this}, as the maps below. */
    private final Map<String, String> hashes = new HashMap<>();
    /** Each credential's sha256 to its machine: a call finds its machine in one look, not one a machine. */
    private final Map<String, String> byHash = new HashMap<>();
    /** Each name joined, lower-cased, to the name it joined as: host names ignore case. */
    private final Map<String, String> byLowerName = new HashMap<>();

    private AgentCredentials(Store store) {
        this.store = store;
        this.folder = new Folder<>(store, FOLDER, Kept.class);
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static AgentCredentials open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /**
     * The credentials kept in {@code store}; an {@code agents.json} of an earlier slurmlet is moved
     * into one document a machine first (each written before the old one is removed, so a crash
     * between leaves both, and the move is done again at the next start).
     */
    public static AgentCredentials open(Store store) throws IOException {
        AgentCredentials credentials = new AgentCredentials(store);
        credentials.moveOldDocument();
        credentials.folder.readAll("the credential hash", "remove that file and join that machine again")
                .forEach((node, kept) -> credentials.remember(node, kept.sha256()));
        return credentials;
    }

    private void moveOldDocument() throws IOException {
        var old = store.get(FILE_NAME);
        if (old.isEmpty()) {
            return;
        }
        Map<String, String> hashes;
        try {
            hashes = SettingsJson.STRICT.readValue(old.get().value(), new TypeReference<Map<String, String>>() { });
        } catch (IOException e) {
            throw new IOException("cannot read the agents' credentials in %s (%s): remove it and join every agent again"
                    .formatted(store.where(FILE_NAME), e.getMessage().split("\n")[0]), e);
        }
        for (var entry : hashes.entrySet()) {
            folder.moveIn(entry.getKey(), new Kept(entry.getValue()));
        }
        if (!store.delete(FILE_NAME, old.get().version())) {
            throw new StorageException("%s changed while its credentials were moved into %s: restart the agent"
                    .formatted(store.where(FILE_NAME), folder.where()), null);
        }
        LOG.infof("moved the credential hashes of %d machines from %s into one file a machine in %s", hashes.size(),
                store.where(FILE_NAME), folder.where());
    }

    private void remember(String node, String hash) {
        String was = hashes.put(node, hash);
        if (was != null) {
            byHash.remove(was);
        }
        byHash.put(hash, node);
        byLowerName.put(node.toLowerCase(java.util.Locale.ROOT), node);
    }

    private void forget(String node) {
        String was = hashes.remove(node);
        if (was != null) {
            byHash.remove(was);
        }
        byLowerName.remove(node.toLowerCase(java.util.Locale.ROOT));
    }

    /** Makes {@code node} a new credential, durable before it is returned, replacing any it had. */
    public synchronized String issue(String node) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String credential = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        String hash = hash(credential);
        folder.put(node, new Kept(hash));
        remember(node, hash);
        return credential;
    }

    /**
     * The machine {@code credential} belongs to; empty when it is no one's. Looked up by its
     * sha256: what the lookup's timing could tell is about the hashes, from which no credential
     * can be made.
     */
    public synchronized Optional<String> nodeOf(String credential) {
        if (credential == null || credential.isBlank()) {
            return Optional.empty();
        }
        return Optional.ofNullable(byHash.get(hash(credential.strip())));
    }

    /**
     * The one of {@code kept} whose sha256 ({@code hashOf}) is that of {@code presented}, compared
     * in constant time with every one; empty for none, or for nothing presented.
     */
    static <T> Optional<T> matching(String presented, Iterable<T> kept, java.util.function.Function<T, String> hashOf) {
        if (presented == null || presented.isBlank()) {
            return Optional.empty();
        }
        byte[] digest = hash(presented.strip()).getBytes(StandardCharsets.US_ASCII);
        Optional<T> found = Optional.empty();
        for (T k : kept) {
            if (MessageDigest.isEqual(digest, hashOf.apply(k).getBytes(StandardCharsets.US_ASCII))) {
                found = Optional.of(k);
            }
        }
        return found;
    }

    /**
     * A new credential for {@code node}, durable before it is returned, unless a machine of that
     * name (in any case: host names ignore it) has joined; then empty.
     */
    public synchronized Optional<String> issueUnlessJoined(String node) throws IOException {
        return joinedAs(node).isPresent() ? Optional.empty() : Optional.of(issue(node));
    }

    /** The name a machine joined as that is {@code node} but for case; empty when none has. */
    public synchronized Optional<String> joinedAs(String node) {
        return Optional.ofNullable(byLowerName.get(node.toLowerCase(java.util.Locale.ROOT)));
    }

    /** The names of every machine that has joined. */
    public synchronized java.util.Set<String> machines() {
        return java.util.Set.copyOf(hashes.keySet());
    }

    /** How many machines have joined. */
    public synchronized int count() {
        return hashes.size();
    }

    /** Revokes {@code node}'s credential at once: it is refused from its next call. Says whether it had one. */
    public synchronized boolean revoke(String node) throws IOException {
        if (!hashes.containsKey(node)) {
            return false;
        }
        folder.delete(node);
        forget(node);
        return true;
    }

    /** The sha256 of a secret (a credential, a join token), hex: what the leader keeps of it. */
    static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "AgentCredentials[" + folder.where() + "]";
    }
}
