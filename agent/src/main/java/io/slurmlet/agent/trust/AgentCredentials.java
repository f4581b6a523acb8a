package io.slurmlet.agent.trust;

import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;

import com.fasterxml.jackson.core.type.TypeReference;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Each joined machine's own credential, which it presents on every call after joining. The leader
 * keeps only each credential's sha256 ({@code agents.json}, root-only): a copy of the state directory
 * lets no one act as a machine. A name that has joined cannot join again until an admin removes
 * that machine ({@code ctl slurm machines remove}), which revokes its credential.
 */
public final class AgentCredentials {

    public static final String FILE_NAME = "agents.json";

    private final Document<Map<String, String>> file;
    private Map<String, String> hashes;
    /** Each credential's sha256 to its machine: a call finds its machine in one look, not one a machine. */
    private Map<String, String> byHash;

    private AgentCredentials(Document<Map<String, String>> file, Map<String, String> hashes) {
        this.file = file;
        set(hashes);
    }

    private void set(Map<String, String> next) {
        Map<String, String> index = new java.util.HashMap<>();
        next.forEach((node, hash) -> index.put(hash, node));
        hashes = next;
        byHash = index;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static AgentCredentials open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    public static AgentCredentials open(Store store) throws IOException {
        Document<Map<String, String>> file = Document.in(store, FILE_NAME, new TypeReference<>() { });
        return new AgentCredentials(file, new TreeMap<>(file.read(Map::of, "the agents' credentials",
                "remove it and join every agent again")));
    }

    /** Makes {@code node} a new credential, durable before it is returned, replacing any it had. */
    public synchronized String issue(String node) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String credential = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Map<String, String> next = new TreeMap<>(hashes);
        next.put(node, hash(credential));
        file.write(next);
        set(next);
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
        return hashes.keySet().stream().filter(n -> n.equalsIgnoreCase(node)).findFirst();
    }

    /** The names of every machine that has joined. */
    public synchronized java.util.Set<String> machines() {
        return java.util.Set.copyOf(hashes.keySet());
    }

    /** Revokes {@code node}'s credential at once: it is refused from its next call. Says whether it had one. */
    public synchronized boolean revoke(String node) throws IOException {
        if (!hashes.containsKey(node)) {
            return false;
        }
        Map<String, String> next = new TreeMap<>(hashes);
        next.remove(node);
        file.write(next);
        set(next);
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
        return "AgentCredentials[" + file.where() + "]";
    }
}
