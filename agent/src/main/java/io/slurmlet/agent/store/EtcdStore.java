package io.slurmlet.agent.store;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.slurmlet.agent.config.AgentConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
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
 */
public final class EtcdStore implements Store, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EtcdStore.class);
    /** Members read in one request of a listing: 10,000 machines' facts are not one message. */
    static final int PAGE = 500;

    /** A client of every member: the watch's, which gRPC moves to another member when its connection dies. */
    private final Client client;
    /**
     * A client per member, for requests: they go to the one that answered last, and a try that
     * timed out is made again at the next ({@link #attempt()}). One client of every member would
     * spread them itself, but round robin can send every try of one request to the same silent
     * member (the lease keeper's requests between them: measured, five tries in a row).
     */
    private final List<Client> members;

    private final AtomicInteger member = new AtomicInteger();
    private final String prefix;
    private final String endpoints;
    private final Duration timeout;
    private final Watchers watchers = new Watchers();
    /** Guards the etcd watch and {@link #heard}. */
    private final Object watching = new Object();

    private Watch.Watcher watcher;
    /** The revision of the last change the watchers were handed; the next watch starts after it. */
    private long heard;
    /** The revision of the last change this store made; guarded by {@link #watching}. */
    private long written;

    private volatile boolean closed;
    /** Set once this agent won the election: every write also compares the leader's key with the one its win put. */
    private volatile Fence fence;

    /** The leader's key and the create revision this agent's win gave it; {@code lost} is told when a write finds it changed. */
    private record Fence(ByteSequence key, long revision, Consumer<String> lost, BooleanSupplier leads) {
        Cmp held() {
            return new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision));
        }
    }

    private EtcdStore(Client client, List<Client> members, String prefix, String endpoints, Duration timeout) {
        this.client = client;
        this.members = List.copyOf(members);
        this.prefix = prefix;
        this.endpoints = endpoints;
        this.timeout = timeout;
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
        return open(client, List.of(client), prefix, endpoints, timeout, true);
    }

    private static EtcdStore open(
            Client client, List<Client> members, String prefix, String endpoints, Duration timeout, boolean reachNow)
            throws StorageException {
        if (!prefix.startsWith("/") || !prefix.endsWith("/") || prefix.contains("//")) {
            throw new IllegalArgumentException("an etcd prefix starts and ends with / (as /slurmlet/): " + prefix);
        }
        EtcdStore store = new EtcdStore(client, members, prefix, endpoints, timeout);
        try {
            store.heard = store.reach(timeout).getHeader().getRevision();
        } catch (StorageException e) {
            if (reachNow) {
                throw e;
            }
            LOG.warnf("%s; this agent stands by until etcd answers", e.getMessage());
        }
        return store;
    }

    /** The KV requests of the member that answered last. */
    KV kv() {
        return members.get(member.get() % members.size()).getKVClient();
    }

    /** The lease requests of the member that answered last. */
    Lease lease() {
        return members.get(member.get() % members.size()).getLeaseClient();
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
            Client client = client(endpoints, caFile, certFile, keyFile, named, timeout);
            opened.add(client);
            List<Client> members = new ArrayList<>();
            if (endpoints.size() == 1) {
                members.add(client);
            } else {
                for (String endpoint : endpoints) {
                    Client one = client(List.of(endpoint), caFile, certFile, keyFile, named, timeout);
                    opened.add(one);
                    members.add(one);
                }
            }
            return open(client, members, prefix, named, timeout, reachNow);
        } catch (StorageException | RuntimeException e) {
            opened.forEach(Client::close);
            throw e;
        }
    }

    private static Client client(
            List<String> endpoints,
            Optional<Path> caFile,
            Optional<Path> certFile,
            Optional<Path> keyFile,
            String named,
            Duration timeout)
            throws StorageException {
        // A member cut off from the network holds the requests the client sends it with no answer and no
        // reset: gRPC's keepalive, while a request waits, finds its connection dead and the client stops
        // sending it any (10 s is gRPC's shortest; etcd allows pings every 5 s, and none while nothing waits).
        ClientBuilder builder = Client.builder()
                .endpoints(endpoints.toArray(String[]::new))
                .connectTimeout(timeout)
                .keepaliveTime(Duration.ofSeconds(10))
                .keepaliveTimeout(Duration.ofSeconds(3))
                .keepaliveWithoutCalls(false)
                .maxInboundMessageSize(64 << 20);
        if (caFile.isPresent()) {
            try {
                builder.sslContext(tls -> {
                    tls.trustManager(caFile.get().toFile());
                    if (certFile.isPresent() && keyFile.isPresent()) {
                        tls.keyManager(certFile.get().toFile(), keyFile.get().toFile());
                    }
                });
            } catch (SSLException | RuntimeException e) {
                throw new StorageException(
                        "cannot read the TLS files for etcd (%s): %s".formatted(named, e.getMessage()), e);
            }
        }
        return builder.build();
    }

    @Override
    public Optional<Versioned> get(String key) throws StorageException {
        GetResponse r = await(() -> kv().get(bytes(Keys.checked(key))), "read " + where(key))
                .answer();
        return r.getKvs().stream()
                .findFirst()
                .map(v -> new Versioned(v.getValue().getBytes(), v.getModRevision()));
    }

    @Override
    public OptionalLong put(String key, byte[] value, long expected) throws StorageException {
        ByteSequence k = bytes(Keys.checked(key));
        Fence f = fence;
        Tried<TxnResponse> tried = await(
                () -> guarded(kv().txn(), unchanged(k, expected), f)
                        .Then(Op.put(k, ByteSequence.from(value), PutOption.DEFAULT))
                        .Else(leaderKey(f, Op.get(k, GetOption.DEFAULT)))
                        .commit(),
                "write " + where(key));
        TxnResponse r = tried.answer();
        if (!r.isSucceeded()) {
            refuseUnfenced(f, r, "write " + where(key));
            // A try that timed out may have been made all the same, and this one then found the key changed: by it.
            List<KeyValue> now = r.getGetResponses().get(0).getKvs();
            if (tried.tries() > 1
                    && !now.isEmpty()
                    && Arrays.equals(now.get(0).getValue().getBytes(), value)
                    && now.get(0).getModRevision() > expected) {
                return made(now.get(0).getModRevision());
            }
        }
        // The transaction's revision is the one its put made: the key's mod revision from now on.
        return r.isSucceeded() ? made(r.getHeader().getRevision()) : OptionalLong.empty();
    }

    @Override
    public boolean delete(String key, long expected) throws StorageException {
        ByteSequence k = bytes(Keys.checked(key));
        Fence f = fence;
        // Made again after a try that timed out: if that one removed it, this one finds nothing, as below.
        TxnResponse r = await(
                        () -> guarded(kv().txn(), unchanged(k, expected), f)
                                .Then(Op.delete(k, DeleteOption.DEFAULT))
                                .Else(leaderKey(f, Op.get(k, GetOption.DEFAULT)))
                                .commit(),
                        "remove " + where(key))
                .answer();
        if (!r.isSucceeded()) {
            refuseUnfenced(f, r, "remove " + where(key));
        }
        if (r.isSucceeded()) {
            made(r.getHeader().getRevision());
        }
        // Not removed: true still when there was nothing to remove, as the file store says.
        return r.isSucceeded() || r.getGetResponses().get(0).getKvs().isEmpty();
    }

    /**
     * A transaction's comparisons: {@code unchanged}, and where this agent leads by an election, the
     * leader's key still its own. An agent that stands by writes nothing.
     */
    private static Txn guarded(Txn txn, Cmp unchanged, Fence f) throws StorageException {
        if (f != null && f.revision() == STANDING_BY) {
            throw new StorageException(
                    "this agent stands by (another leads the cluster, or none yet), so it writes nothing to the store",
                    null);
        }
        if (f != null && !f.leads().getAsBoolean()) {
            throw new StorageException(
                    "this agent's lease as the leader ran out (not renewed in time), so it writes nothing to the store",
                    null);
        }
        return f == null ? txn.If(unchanged) : txn.If(unchanged, f.held());
    }

    /** The fence's revision while this agent takes part in an election it has not won. */
    private static final long STANDING_BY = -1;

    /** What a refused transaction reads back to tell a changed document from a lost election: the leader's key. */
    private static Op[] leaderKey(Fence f, Op... before) {
        Op[] ops = Arrays.copyOf(before, before.length + (f == null ? 0 : 1));
        if (f != null) {
            ops[before.length] =
                    Op.get(f.key(), GetOption.builder().withKeysOnly(true).build());
        }
        return ops;
    }

    /** A transaction refused because the leader's key is no longer the one this agent put: it does not lead, and says so. */
    private void refuseUnfenced(Fence f, TxnResponse r, String what) throws StorageException {
        if (f == null) {
            return;
        }
        GetResponse leader = r.getGetResponses().get(r.getGetResponses().size() - 1);
        if (leader.getKvs().isEmpty() || leader.getKvs().get(0).getCreateRevision() != f.revision()) {
            String why = "the leader's key %s is no longer the one this agent's election put (revision %d)"
                    .formatted(f.key().toString(StandardCharsets.UTF_8), f.revision());
            f.lost().accept(why);
            throw new StorageException(
                    "cannot %s: this agent does not lead the cluster any more (%s), so it writes nothing"
                            .formatted(what, why),
                    null);
        }
    }

    /**
     * From now on every write also compares {@code key}'s create revision with {@code revision} (the
     * one this agent's election win gave it), in the same transaction: a leader whose lease lapsed
     * writes nothing, however late it runs, and {@code lost} is told.
     */
    void fenceBy(ByteSequence key, long revision, Consumer<String> lost, BooleanSupplier leads) {
        fence = new Fence(key, revision, lost, leads);
    }

    /**
     * The election of this cluster's leader among the leader-eligible agents that share this store
     * ({@link EtcdElection}); its win fences this store's writes.
     *
     * @param lost told once, when this agent stops leading for good
     */
    public EtcdElection election(EtcdElection.Record self, Duration ttl, Consumer<String> lost) {
        fence = new Fence(bytes(EtcdElection.KEY), STANDING_BY, lost, () -> false);
        return new EtcdElection(this, bytes(EtcdElection.KEY), self, ttl, timeout, System::nanoTime, lost);
    }

    /**
     * What one of the store's own keys beside the state holds ({@code _secrets}, say: a name starting
     * with {@code _}, which no watcher or listing of the state sees); empty when nothing.
     */
    public Optional<byte[]> reserved(String name) throws StorageException {
        GetResponse r = await(() -> kv().get(bytes(reservedName(name))), "read " + where(name))
                .answer();
        return r.getKvs().stream().findFirst().map(v -> v.getValue().getBytes());
    }

    /** What one of the store's own keys holds, with its mod revision: what {@link #replaceReserved} compares. */
    public Optional<Versioned> reservedVersioned(String name) throws StorageException {
        GetResponse r = await(() -> kv().get(bytes(reservedName(name))), "read " + where(name))
                .answer();
        return r.getKvs().stream()
                .findFirst()
                .map(v -> new Versioned(v.getValue().getBytes(), v.getModRevision()));
    }

    /**
     * Replaces what one of the store's own keys holds if it is still at {@code expected} (its mod
     * revision as read), fenced as every write is; says whether it did. A try that timed out and was
     * made all the same is told by the value read back.
     */
    public boolean replaceReserved(String name, long expected, byte[] value) throws StorageException {
        ByteSequence k = bytes(reservedName(name));
        Fence f = fence;
        Tried<TxnResponse> tried = await(
                () -> guarded(kv().txn(), new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(expected)), f)
                        .Then(Op.put(k, ByteSequence.from(value), PutOption.DEFAULT))
                        .Else(leaderKey(f, Op.get(k, GetOption.DEFAULT)))
                        .commit(),
                "write " + where(name));
        TxnResponse r = tried.answer();
        if (r.isSucceeded()) {
            return true;
        }
        refuseUnfenced(f, r, "write " + where(name));
        List<KeyValue> now = r.getGetResponses().get(0).getKvs();
        return tried.tries() > 1
                && !now.isEmpty()
                && Arrays.equals(now.get(0).getValue().getBytes(), value);
    }

    /** Puts {@code value} under one of the store's own keys if it holds nothing yet (fenced as every write is); says whether it did. */
    public boolean createReserved(String name, byte[] value) throws StorageException {
        ByteSequence k = bytes(reservedName(name));
        Fence f = fence;
        // Made again after a try that timed out: if that one put it, this one finds it there (read back by the caller).
        TxnResponse r = await(
                        () -> guarded(kv().txn(), unchanged(k, ABSENT), f)
                                .Then(Op.put(k, ByteSequence.from(value), PutOption.DEFAULT))
                                .Else(leaderKey(f))
                                .commit(),
                        "write " + where(name))
                .answer();
        if (!r.isSucceeded()) {
            refuseUnfenced(f, r, "write " + where(name));
        }
        return r.isSucceeded();
    }

    private static String reservedName(String name) {
        if (!name.matches("_[a-z]+")) {
            throw new IllegalArgumentException("not one of the store's own keys: " + name);
        }
        return name;
    }

    /** The key still at the version read: its mod revision, or for a key that held nothing no create revision. */
    private static Cmp unchanged(ByteSequence key, long expected) {
        return expected == ABSENT
                ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(expected));
    }

    @Override
    public Map<String, Versioned> list(String folder) throws StorageException {
        String start = Keys.checkedFolder(folder) + "/";
        // The keys after "folder/" and before "folder0" ('0' follows '/'): the collection's members, no other folder's.
        ByteSequence end = bytes(folder + "0");
        Map<String, Versioned> members = new TreeMap<>();
        long revision = 0;
        ByteSequence from = bytes(start);
        while (true) {
            GetOption.Builder page = GetOption.builder()
                    .withRange(end)
                    .withLimit(PAGE)
                    .withSortField(GetOption.SortTarget.KEY)
                    .withSortOrder(GetOption.SortOrder.ASCEND);
            if (revision != 0) {
                page.withRevision(revision); // every page of one listing read at the first page's revision
            }
            ByteSequence pageFrom = from;
            GetResponse r = await(() -> kv().get(pageFrom, page.build()), "list " + where(folder))
                    .answer();
            if (revision == 0) {
                revision = r.getHeader().getRevision();
            }
            String last = null;
            for (KeyValue v : r.getKvs()) {
                last = keyOf(v);
                if (Keys.member(last.substring(start.length()))) {
                    members.put(last, new Versioned(v.getValue().getBytes(), v.getModRevision()));
                }
            }
            if (!r.isMore() || last == null) {
                return members;
            }
            from = bytes(last + "\0");
        }
    }

    /** Notes {@code revision} as a change this store made (a watch begun after it is not told of it); returns it. */
    private OptionalLong made(long revision) {
        synchronized (watching) {
            written = Math.max(written, revision);
        }
        return OptionalLong.of(revision);
    }

    @Override
    public Runnable watch(Consumer<String> listener) {
        synchronized (watching) {
            // A change this store made before the watch began may reach etcd's watch after it: not told.
            Runnable end = watchers.add(listener, Math.max(heard, written));
            if (watcher == null && !closed) {
                if (heard == 0) { // opened while etcd did not answer: the watch starts from now
                    try {
                        heard = reach(timeout).getHeader().getRevision();
                    } catch (StorageException e) {
                        throw new IllegalStateException(e.getMessage(), e);
                    }
                }
                startWatch(heard + 1);
            }
            return end;
        }
    }

    /** One etcd watch of every key under the prefix, from {@code revision}. */
    private void startWatch(long revision) {
        watcher = client.getWatchClient()
                .watch(
                        bytes(""),
                        WatchOption.builder()
                                .isPrefix(true)
                                .withRevision(revision)
                                .build(),
                        Watch.listener(this::heard, this::lost));
    }

    private void heard(WatchResponse response) {
        for (WatchEvent event : response.getEvents()) {
            // A put's or a delete's own revision (etcd sets a deleted key's mod revision to its deletion's).
            long revision = event.getKeyValue().getModRevision();
            String key = keyOf(event.getKeyValue());
            synchronized (watching) {
                heard = Math.max(heard, revision);
            }
            if (Keys.valid(key)) {
                watchers.tell(key, revision);
            }
        }
    }

    /**
     * The watch ended on an error jetcd does not resume from itself (its revision compacted away, or
     * the watch cancelled): a new one from now, and every key told once, as any might have changed.
     */
    private void lost(Throwable error) {
        if (closed) {
            return;
        }
        LOG.warnf(
                "the watch of etcd %s%s ended (%s): watching again, and every key read again",
                endpoints, prefix, error.getMessage());
        watchers.later(() -> {
            try {
                GetResponse keys = await(
                                () -> kv().get(
                                                bytes(""),
                                                GetOption.builder()
                                                        .isPrefix(true)
                                                        .withKeysOnly(true)
                                                        .build()),
                                "list every key")
                        .answer();
                synchronized (watching) {
                    if (closed) {
                        return;
                    }
                    watcher.close();
                    heard = keys.getHeader().getRevision();
                    startWatch(heard + 1);
                }
                for (KeyValue v : keys.getKvs()) {
                    String key = keyOf(v);
                    if (Keys.valid(key)) {
                        watchers.tell(key);
                    }
                }
            } catch (StorageException e) {
                LOG.errorf("cannot watch etcd %s%s again: %s; trying again in 1 s", endpoints, prefix, e.getMessage());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException stop) {
                    return;
                }
                lost(e);
            }
        });
    }

    @Override
    public Optional<String> unreachable() {
        try {
            reach(Duration.ofSeconds(1));
            return Optional.empty();
        } catch (StorageException e) {
            return Optional.of(e.getMessage());
        }
    }

    @Override
    public String where(String key) {
        return "etcd key " + prefix + key + " (" + endpoints + ")";
    }

    @Override
    public void close() {
        synchronized (watching) {
            closed = true;
            if (watcher != null) {
                watcher.close();
            }
        }
        watchers.close();
        client.close();
        members.stream().filter(m -> m != client).forEach(Client::close);
    }

    /** The state's key of an etcd key under the prefix. */
    private String keyOf(KeyValue v) {
        return v.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length());
    }

    /** A count of the keys under the prefix: the cheapest request etcd answers only when it can. */
    private GetResponse reach(Duration within) throws StorageException {
        return answered(
                        () -> kv().get(
                                        bytes(""),
                                        GetOption.builder()
                                                .isPrefix(true)
                                                .withCountOnly(true)
                                                .build()),
                        "reach etcd",
                        within,
                        attempt())
                .answer();
    }

    private ByteSequence bytes(String key) {
        return ByteSequence.from(prefix + key, StandardCharsets.UTF_8);
    }

    /** An answer, and how many tries it took. */
    record Tried<T>(T answer, int tries) {}

    /** A request to etcd, made anew at each try (one refused before it is sent, as by the fence, throws). */
    @FunctionalInterface
    interface Request<T> {
        CompletableFuture<T> send() throws StorageException;
    }

    /**
     * What one try of a request may take before it is made again: the client spreads requests over
     * every member, and one cut off from the others (or just back, its peers' connections not yet
     * made again) holds what it is sent until etcd's own 7 s; waited out whole, a third of all
     * requests would fail while one member is away (measured on the local cluster).
     */
    Duration attempt() {
        return timeout.compareTo(ATTEMPT) < 0 ? timeout : ATTEMPT;
    }

    /** One try's time: ample for a member that answers (milliseconds here), and five tries in the default 5 s. */
    private static final Duration ATTEMPT = Duration.ofSeconds(1);

    private <T> Tried<T> await(Request<T> request, String what) throws StorageException {
        return answered(request, what, timeout, attempt());
    }

    /**
     * etcd's answer to {@code request}, made again after each try that takes longer than
     * {@code attempt}, until {@code within} (real time) is spent; an answer that is an error is not
     * asked again.
     */
    <T> Tried<T> answered(Request<T> request, String what, Duration within, Duration attempt) throws StorageException {
        long end = System.nanoTime() + within.toNanos();
        int tries = 0;
        while (true) {
            long left = end - System.nanoTime();
            tries++;
            int asked = member.get();
            try {
                return new Tried<>(
                        answered(
                                request.send(),
                                what,
                                endpoints,
                                Duration.ofNanos(Math.max(1_000_000, Math.min(attempt.toNanos(), left)))),
                        tries);
            } catch (StorageException e) {
                if (!(e.getCause() instanceof TimeoutException)) {
                    throw e;
                }
                if (members.size() > 1 && member.compareAndSet(asked, asked + 1)) {
                    LOG.debugf(
                            "etcd at member %d of %d did not answer %s in %s: the next try goes to the next",
                            asked % members.size() + 1, members.size(), what, attempt);
                }
                if (System.nanoTime() - end >= 0) {
                    throw new StorageException(
                            "cannot %s: etcd (%s) did not answer within %s (%d tries)"
                                    .formatted(
                                            what,
                                            endpoints,
                                            within.toMillis() % 1000 == 0
                                                    ? within.toSeconds() + " s"
                                                    : within.toMillis() + " ms",
                                            tries),
                            e);
                }
            }
        }
    }

    private <T> T await(CompletableFuture<T> answer, String what, Duration within) throws StorageException {
        return answered(answer, what, endpoints, within);
    }

    /** etcd's answer within {@code within}; else a StorageException that says what could not be done, where, and why. */
    static <T> T answered(CompletableFuture<T> answer, String what, String endpoints, Duration within)
            throws StorageException {
        try {
            return answer.get(within.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new StorageException(
                    "cannot %s: etcd (%s) did not answer within %s"
                            .formatted(
                                    what,
                                    endpoints,
                                    within.toMillis() % 1000 == 0
                                            ? within.toSeconds() + " s"
                                            : within.toMillis() + " ms"),
                    e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new StorageException(
                    "cannot %s: etcd (%s) said: %s".formatted(what, endpoints, cause.getMessage()), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(
                    "cannot %s: interrupted while waiting for etcd (%s)".formatted(what, endpoints), e);
        }
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

    /** The endpoints as the admin wrote them, for errors. */
    String endpoints() {
        return endpoints;
    }
}
