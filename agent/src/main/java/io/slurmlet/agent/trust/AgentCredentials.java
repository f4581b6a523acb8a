package io.slurmlet.agent.trust;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Folder;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Each joined machine's own credential, which it presents on every call after joining. The leader
 * keeps only each credential's sha256, one document a machine ({@code agents/NODE}, root-only): a
 * copy of the state directory lets no one act as a machine, and a join writes that machine's few
 * bytes, not every machine's again (ten thousand joins rewrote a growing {@code agents.json} ten
 * thousand times: a sixth of the leader's CPU in bench/leader_load.py, and past etcd's request size
 * at that scale). Each credential also keeps the id of the join token it was made with, so that
 * removing the machine can revoke that token too.
 *
 * <p>A name that has joined cannot join again until an admin removes that machine
 * ({@code ctl slurm machines remove}), which revokes its credential and keeps a removal
 * ({@code removed/NODE}): the name is refused from then on, whatever join token its machine still
 * holds, until an admin allows it again ({@code ctl slurm machines allow}). Joins, removals and
 * allows take this object's lock, so a join never slips in between a removal's check and its write.
 *
 * <p>A call's credential check ({@link #nodeOf}, on the agents' channel's event loop) and
 * {@link #count} take no lock: a write holds this object's lock while the store makes it durable
 * (an etcd round trip, seconds when etcd is slow), and a check waiting for it froze every agent's
 * poll. They read what the last write that finished left, and a write changes it only once durable.
 */
public final class AgentCredentials {

    /** The store's collection of the machines' credential hashes: {@code agents/gpu001}. */
    public static final String FOLDER = "agents";
    /** Where slurmlet kept every machine's hash in one document before; moved into {@link #FOLDER} at open. */
    public static final String FILE_NAME = "agents.json";

    private static final Logger LOG = Logger.getLogger(AgentCredentials.class);

    /** The store's collection of the machines removed, whose names are refused: {@code removed/gpu001}. */
    public static final String REMOVED_FOLDER = "removed";

    /**
     * What a machine's document holds.
     *
     * @param sha256    the sha256 of its credential, hex
     * @param joinToken the id of the join token it joined with; empty for a credential made before
     *                  slurmlet kept it, or made on the leader's own machine (no token); left out of
     *                  the document when empty
     */
    @RegisterForReflection
    record Kept(
            @JsonProperty("sha256") String sha256,

            @JsonProperty("join_token") @JsonInclude(JsonInclude.Include.NON_EMPTY)
            String joinToken) {
        Kept {
            joinToken = joinToken == null ? "" : joinToken;
        }
    }

    /**
     * A machine removed: its name is refused until an admin allows it again.
     *
     * @param removed   when, as an ISO-8601 instant
     * @param by        who removed it, as the leader's log says it
     * @param joinToken the id of the join token it had joined with, revoked with it; empty for none known
     */
    @RegisterForReflection
    public record Removal(
            @JsonProperty("removed") String removed,
            @JsonProperty("by") String by,
            @JsonProperty("join_token") String joinToken) {
        public Removal {
            joinToken = joinToken == null ? "" : joinToken;
        }
    }

    /**
     * What {@link #remove} did.
     *
     * @param credentialRevoked whether the machine had a credential, now revoked
     * @param joinToken         the id of the join token its credential was made with; empty for none known
     */
    public record Removed(boolean credentialRevoked, Optional<String> joinToken) {}

    /**
     * A join, or a credential made on the leader's own machine, under a name an admin removed. Its
     * message goes to the machine that asked: who removed it (an address) is the leader's log's only.
     */
    public static final class NameRemoved extends IOException {
        private final String node;
        private final transient Removal removal;

        NameRemoved(String node, Removal removal) {
            super(
                    ("%s was removed from this cluster at %s, and its name is refused since: if this machine is to join again, "
                                    + "an admin allows it on the leader first: ctl slurm machines allow %s")
                            .formatted(node, removal.removed(), node));
            this.node = node;
            this.removal = removal;
        }

        /** The name as it was removed. */
        public String node() {
            return node;
        }

        public Removal removal() {
            return removal;
        }
    }

    private final Store store;
    /** Each machine's document. */
    private final Folder<Kept> folder;
    /** The names removed; guarded by {@code this}. */
    private final RemovedNames removals;
    /** The id of the join token each machine joined with, where known. */
    private final Map<String, String> joinedWith = new HashMap<>();
    /** Each machine's hash; guarded by {@code this}, as the maps below but {@link #byHash}. */
    private final Map<String, String> hashes = new HashMap<>();
    /**
     * Each credential's sha256 to its machine: a call finds its machine in one look, not one a
     * machine. Changed under {@code this}, after the write that made the change durable; read
     * without it ({@link #nodeOf}), so a check never waits for a write in flight. A concurrent map,
     * not a copy replaced at each write: 10,000 joins would copy 50 million entries.
     */
    private final Map<String, String> byHash = new ConcurrentHashMap<>();
    /** How many machines {@link #hashes} holds, set with it: read without the lock, as {@link #byHash}. */
    private volatile int joined;
    /** Each name joined, lower-cased, to the name it joined as: host names ignore case. */
    private final Map<String, String> byLowerName = new HashMap<>();

    private AgentCredentials(Store store) {
        this.store = store;
        this.folder = new Folder<>(store, FOLDER, Kept.class);
        this.removals = new RemovedNames(store);
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
        credentials
                .folder
                .readAll("the credential hash", "remove that file and join that machine again")
                .forEach((node, kept) -> credentials.remember(node, kept));
        credentials.removals.load();
        return credentials;
    }

    private void moveOldDocument() throws IOException {
        var old = store.get(FILE_NAME);
        if (old.isEmpty()) {
            return;
        }
        Map<String, String> hashes;
        try {
            hashes = SettingsJson.STRICT.readValue(old.get().value(), new TypeReference<Map<String, String>>() {});
        } catch (IOException e) {
            throw new IOException(
                    "cannot read the agents' credentials in %s (%s): remove it and join every agent again"
                            .formatted(store.where(FILE_NAME), e.getMessage().split("\n")[0]),
                    e);
        }
        for (var entry : hashes.entrySet()) {
            folder.moveIn(entry.getKey(), new Kept(entry.getValue(), ""));
        }
        if (!store.delete(FILE_NAME, old.get().version())) {
            throw new StorageException(
                    "%s changed while its credentials were moved into %s: restart the agent"
                            .formatted(store.where(FILE_NAME), folder.where()),
                    null);
        }
        LOG.infof(
                "moved the credential hashes of %d machines from %s into one file a machine in %s",
                hashes.size(), store.where(FILE_NAME), folder.where());
    }

    private void remember(String node, Kept kept) {
        String was = hashes.put(node, kept.sha256());
        byHash.put(kept.sha256(), node);
        if (was != null && !was.equals(kept.sha256())) {
            byHash.remove(was);
        }
        byLowerName.put(lower(node), node);
        if (kept.joinToken().isEmpty()) {
            joinedWith.remove(node);
        } else {
            joinedWith.put(node, kept.joinToken());
        }
        joined = hashes.size();
    }

    private void forget(String node) {
        String was = hashes.remove(node);
        if (was != null) {
            byHash.remove(was);
        }
        byLowerName.remove(lower(node));
        joinedWith.remove(node);
        joined = hashes.size();
    }

    static String lower(String node) {
        return node.toLowerCase(Locale.ROOT);
    }

    /**
     * Makes {@code node} a new credential, durable before it is returned, replacing any it had: the
     * leader's own machine, which joins without a join token.
     *
     * @throws NameRemoved when an admin removed that name (in any case) and has not allowed it again
     */
    public synchronized String issue(String node) throws IOException {
        refuseRemoved(node);
        return issue(node, "");
    }

    private String issue(String node, String joinToken) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String credential = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Kept kept = new Kept(Secrets.hash(credential), joinToken);
        folder.put(node, kept);
        remember(node, kept);
        return credential;
    }

    private void refuseRemoved(String node) throws NameRemoved {
        var removed = removedAs(node);
        if (removed.isPresent()) {
            throw new NameRemoved(removed.get(), removals.of(removed.get()).orElseThrow());
        }
    }

    /**
     * The machine {@code credential} belongs to; empty when it is no one's. Looked up by its
     * sha256: what the lookup's timing could tell is about the hashes, from which no credential
     * can be made. Takes no lock, so it never waits for a join's or a removal's write: it answers
     * as the last write that finished left the credentials (a credential being revoked still
     * names its machine until its revocation is durable).
     */
    public Optional<String> nodeOf(String credential) {
        if (credential == null || credential.isBlank()) {
            return Optional.empty();
        }
        return Optional.ofNullable(byHash.get(Secrets.hash(credential.strip())));
    }

    /**
     * A new credential for {@code node}, joining with the join token {@code joinToken} (its id,
     * kept with the credential), durable before it is returned, unless a machine of that name (in
     * any case: host names ignore it) has joined; then empty.
     *
     * @throws NameRemoved when an admin removed that name and has not allowed it again
     */
    public synchronized Optional<String> issueUnlessJoined(String node, String joinToken) throws IOException {
        refuseRemoved(node);
        return joinedAs(node).isPresent() ? Optional.empty() : Optional.of(issue(node, joinToken));
    }

    /** The name a machine joined as that is {@code node} but for case; empty when none has. */
    public synchronized Optional<String> joinedAs(String node) {
        return Optional.ofNullable(byLowerName.get(lower(node)));
    }

    /** The names of every machine that has joined. */
    public synchronized Set<String> machines() {
        return Set.copyOf(hashes.keySet());
    }

    /** How many machines have joined; takes no lock, as {@link #nodeOf} (a plan's answer tells it, on the event loop). */
    public int count() {
        return joined;
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

    /**
     * Removes the machine {@code node}, under the lock a join takes: its removal is made durable
     * first, so its name is refused from then on (a crash before the credential is revoked leaves
     * a name refused, never a credential revoked and the name free), then its credential, if it
     * has one, is revoked.
     *
     * @param at when, for the list of removed machines
     * @param by who asked, as the leader's log says it
     */
    public synchronized Removed remove(String node, Instant at, String by) throws IOException {
        Optional<String> joinToken = Optional.ofNullable(joinedWith.get(node));
        // Removed again (its facts were still kept): the token its first removal revoked stays named.
        String named =
                joinToken.or(() -> removals.of(node).map(Removal::joinToken)).orElse("");
        Removal removal = new Removal(at.toString(), by, named);
        removals.put(node, removal);
        return new Removed(revoke(node), joinToken);
    }

    /** Lets the name {@code node} (in any case) join again: the name as it was removed; empty when it was not. */
    public synchronized Optional<String> allow(String node) throws IOException {
        return removals.allow(node);
    }

    /** The name removed that is {@code node} but for case; empty when none is. */
    public synchronized Optional<String> removedAs(String node) {
        return removals.as(node);
    }

    /** Every machine removed and not allowed again, by name, in order. */
    public synchronized SortedMap<String, Removal> removed() {
        return removals.all();
    }

    /** The id of the join token {@code node}'s credential was made with; empty where none is known. */
    public synchronized Optional<String> joinToken(String node) {
        return Optional.ofNullable(joinedWith.get(node));
    }

    @Override
    public String toString() {
        return "AgentCredentials[" + folder.where() + "]";
    }
}
