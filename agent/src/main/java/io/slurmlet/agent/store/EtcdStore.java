package io.slurmlet.agent.store;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.slurmlet.agent.config.AgentConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The store in etcd: every key under one prefix ({@code /slurmlet/} by default, so that an etcd
 * cluster can hold other things), a document's version its key's mod revision. A write is a
 * transaction that compares the key's mod revision with the one it was read at (a key that held
 * nothing: its create revision 0), so two leaders never overwrite each other silently; etcd answers
 * once the write is in the log of a majority of its members, on disk. A collection is listed by its
 * key prefix in pages, all read at one revision. Watchers hear every change under the prefix from one
 * etcd watch, in revision order, on a thread of the store's own; a watch that lost its place (its
 * revision compacted away) starts again from now and tells them every key, so a typed view reads
 * everything again rather than miss a change.
 *
 * <p>A write whose answer did not come (etcd unreachable, the time up) throws: it may or may not have
 * been made, and the caller, which reads before it writes again, finds out.
 *
 * <p>This class is the store's face; its parts do the work: {@link EtcdClient} the clients and each
 * request's tries, {@link EtcdDocuments} the state's documents, {@link EtcdReserved} the store's own
 * keys, {@link EtcdWatch} the watchers, and {@link EtcdFence} what a write compares where an election
 * chose the leader.
 */
public final class EtcdStore implements Store, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EtcdStore.class);

    private final EtcdClient etcd;
    private final EtcdDocuments documents;
    private final EtcdReserved reserved;
    private final EtcdWatch watch;

    /** Set once this agent won the election: every write also compares the leader's key with the one its win put. */
    private volatile EtcdFence fence;

    private EtcdStore(EtcdClient etcd, long heard) {
        this.etcd = etcd;
        this.watch = new EtcdWatch(etcd, heard);
        this.documents = new EtcdDocuments(etcd, watch::made);
        this.reserved = new EtcdReserved(etcd);
    }

    /**
     * The store under {@code prefix} of the etcd {@code client} reaches; asks etcd once, so that an
     * etcd that cannot be reached stops the leader at start with the reason, as an unreadable state
     * directory does.
     *
     * @param endpoints the endpoints as the admin wrote them, for errors
     */
    public static EtcdStore open(Client client, String prefix, String endpoints, Duration timeout)
            throws StorageException {
        return open(new EtcdClient(client, List.of(client), prefix, endpoints, timeout), true);
    }

    private static EtcdStore open(EtcdClient etcd, boolean reachNow) throws StorageException {
        long heard = 0;
        try {
            heard = etcd.reach(etcd.timeout()).getHeader().getRevision();
        } catch (StorageException e) {
            if (reachNow) {
                throw e;
            }
            LOG.warnf("%s; this agent stands by until etcd answers", e.getMessage());
        }
        return new EtcdStore(etcd, heard);
    }

    /**
     * Connects to the etcd members at {@code endpoints} (https ones with the CA, certificate and key
     * given: etcd checks the client certificate) and opens the store under {@code prefix}.
     */
    public static EtcdStore connect(
            List<String> endpoints,
            Optional<Path> caFile,
            Optional<Path> certFile,
            Optional<Path> keyFile,
            String prefix,
            Duration timeout)
            throws StorageException {
        return connect(endpoints, caFile, certFile, keyFile, prefix, timeout, true);
    }

    /**
     * {@link #connect(List, Optional, Optional, Optional, String, Duration)}; with {@code reachNow}
     * false an etcd that does not answer yet is said and the store opened all the same: a
     * leader-eligible agent stands by (its election asks again), and its machine's own part goes on,
     * rather than the agent exiting until etcd is back.
     */
    public static EtcdStore connect(
            List<String> endpoints,
            Optional<Path> caFile,
            Optional<Path> certFile,
            Optional<Path> keyFile,
            String prefix,
            Duration timeout,
            boolean reachNow)
            throws StorageException {
        String named = String.join(",", endpoints);
        List<Client> opened = new ArrayList<>();
        try {
            Client client = EtcdClient.client(endpoints, caFile, certFile, keyFile, named, timeout);
            opened.add(client);
            List<Client> members = new ArrayList<>();
            if (endpoints.size() == 1) {
                members.add(client);
            } else {
                for (String endpoint : endpoints) {
                    Client one = EtcdClient.client(List.of(endpoint), caFile, certFile, keyFile, named, timeout);
                    opened.add(one);
                    members.add(one);
                }
            }
            return open(new EtcdClient(client, members, prefix, named, timeout), reachNow);
        } catch (StorageException | RuntimeException e) {
            opened.forEach(Client::close);
            throw e;
        }
    }

    @Override
    public Optional<Versioned> get(String key) throws StorageException {
        return documents.get(key);
    }

    @Override
    public OptionalLong put(String key, byte[] value, long expected) throws StorageException {
        return documents.put(key, value, expected, fence);
    }

    @Override
    public boolean delete(String key, long expected) throws StorageException {
        return documents.delete(key, expected, fence);
    }

    @Override
    public Map<String, Versioned> list(String folder) throws StorageException {
        return documents.list(folder);
    }

    @Override
    public Runnable watch(Consumer<String> listener) {
        return watch.watch(listener);
    }

    /**
     * From now on every write also compares {@code key}'s create revision with {@code revision} (the
     * one this agent's election win gave it), in the same transaction: a leader whose lease lapsed
     * writes nothing, however late it runs, and {@code lost} is told.
     */
    void fenceBy(ByteSequence key, long revision, Consumer<String> lost, BooleanSupplier leads) {
        fence = new EtcdFence(key, revision, lost, leads);
    }

    /**
     * The election of this cluster's leader among the leader-eligible agents that share this store
     * ({@link EtcdElection}); its win fences this store's writes.
     *
     * @param lost told once, when this agent stops leading for good
     */
    public EtcdElection election(EtcdElection.Record self, Duration ttl, Consumer<String> lost) {
        fence = EtcdFence.standingBy(etcd.bytes(EtcdElection.KEY), lost);
        return new EtcdElection(
                this, etcd, etcd.bytes(EtcdElection.KEY), self, ttl, etcd.timeout(), System::nanoTime, lost);
    }

    /**
     * What one of the store's own keys beside the state holds ({@code _secrets}, say: a name starting
     * with {@code _}, which no watcher or listing of the state sees); empty when nothing.
     */
    public Optional<byte[]> reserved(String name) throws StorageException {
        return reserved.get(name);
    }

    /** What one of the store's own keys holds, with its mod revision: what {@link #replaceReserved} compares. */
    public Optional<Versioned> reservedVersioned(String name) throws StorageException {
        return reserved.versioned(name);
    }

    /**
     * Replaces what one of the store's own keys holds if it is still at {@code expected} (its mod
     * revision as read), fenced as every write is; says whether it did. A try that timed out and was
     * made all the same is told by the value read back.
     */
    public boolean replaceReserved(String name, long expected, byte[] value) throws StorageException {
        return reserved.replace(name, expected, value, fence);
    }

    /** Puts {@code value} under one of the store's own keys if it holds nothing yet (fenced as every write is); says whether it did. */
    public boolean createReserved(String name, byte[] value) throws StorageException {
        return reserved.create(name, value, fence);
    }

    @Override
    public Optional<String> unreachable() {
        try {
            etcd.reach(Duration.ofSeconds(1));
            return Optional.empty();
        } catch (StorageException e) {
            return Optional.of(e.getMessage());
        }
    }

    @Override
    public String where(String key) {
        return etcd.where(key);
    }

    @Override
    public void close() {
        watch.close();
        etcd.close();
    }

    /**
     * The etcd endpoints {@code etcd} names, each checked: a URL; https with the CA, certificate and
     * key to use it; http only where the site said {@code insecure-plaintext: true}. The same check
     * for the agent and for {@code slurmlet-agent store-move}.
     */
    public static List<String> endpoints(AgentConfig.Etcd etcd) {
        List<String> endpoints = etcd.endpoints().orElse(List.of());
        if (endpoints.isEmpty()) {
            throw new IllegalStateException(
                    "slurmlet.leader.store.kind is etcd and slurmlet.leader.store.etcd.endpoints is empty: list every "
                            + "etcd member's client URL, as [https://etcd1.example.org:2379, https://etcd2.example.org:2379, https://etcd3.example.org:2379]");
        }
        for (String endpoint : endpoints) {
            if (endpoint.startsWith("https://")
                    && (etcd.caFile().isEmpty()
                            || etcd.certFile().isEmpty()
                            || etcd.keyFile().isEmpty())) {
                throw new IllegalStateException(
                        ("slurmlet.leader.store.etcd.endpoints has %s, and an https endpoint needs "
                                        + "slurmlet.leader.store.etcd.ca-file, cert-file and key-file: set all three (the CA of etcd's certificates, "
                                        + "this agent's client certificate and its key)")
                                .formatted(endpoint));
            }
            if (endpoint.startsWith("http://") && !etcd.insecurePlaintext()) {
                throw new IllegalStateException(
                        ("slurmlet.leader.store.etcd.endpoints has %s, plain http: whoever is on the network "
                                        + "between this agent and etcd would read the cluster's state and could write it, which makes them its admin; "
                                        + "serve etcd over TLS and write https://HOST:2379 with ca-file, cert-file and key-file, or, on a test bench "
                                        + "on loopback only, set slurmlet.leader.store.etcd.insecure-plaintext: true")
                                .formatted(endpoint));
            }
            if (!endpoint.startsWith("https://") && !endpoint.startsWith("http://")) {
                throw new IllegalStateException(
                        ("slurmlet.leader.store.etcd.endpoints has %s, which is not a URL: write "
                                        + "https://HOST:2379")
                                .formatted(endpoint));
            }
        }
        return endpoints;
    }
}
