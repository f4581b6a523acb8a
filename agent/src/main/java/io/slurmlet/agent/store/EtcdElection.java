package io.slurmlet.agent.store;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The leader-eligible agents of one cluster elect their leader in etcd: the leader is the agent whose
 * record the key {@code _leader} under the store's prefix holds, put there with a lease of its own
 * (a transaction that puts it only where the key holds nothing) and kept by renewing that lease every
 * third of its time to live. The others stand by, reading the key every half second, and the first of
 * them to find it gone (the lease lapsed: the leader's process or machine died, or it lost etcd) takes
 * its place.
 *
 * <p>Fencing, so that two agents never act as the leader at once: the leader counts its lease from
 * the moment it asked for each renewal, on the monotonic clock, less a margin, so it stops leading
 * ({@link #leads()} false) before etcd can let the lease lapse and another take the key; a paused
 * process or a clock jump cannot stretch that (etcd itself only ever extends a lease, as when its own
 * leader changes). Every write to the store is a transaction that also compares the key's create
 * revision with the one this agent's win made ({@link EtcdStore#fenceBy}), so a leader that lost the
 * key writes nothing, however late it runs; and a write is not even sent once its own count ran out,
 * nor by an agent standing by. A lost lease is final: the caller's {@code lost} is told
 * (the agent exits, and systemd starts it again as a standby).
 */
public final class EtcdElection implements Leadership, AutoCloseable {

    /** The election's key under the prefix: not a key of the state ({@link Keys}), so no watcher, listing or move sees it. */
    static final String KEY = "_leader";

    private static final Logger LOG = Logger.getLogger(EtcdElection.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the leader's key holds: who leads, and where its agents' channel is. */
    @RegisterForReflection
    public record Record(
            @JsonProperty("name") String name,
            @JsonProperty("agents") String agents) {
        @Override
        public String toString() {
            return name + " (" + agents + ")";
        }
    }

    /** The store this election's win fences. */
    private final EtcdStore store;
    /** The store's etcd clients, which the election's requests go through. */
    private final EtcdClient etcd;

    private final ByteSequence key;
    private final Record self;
    private final Duration ttl;
    private final Duration timeout;
    private final LongSupplier nanos;
    private final Consumer<String> lost;
    private final Duration poll;

    private volatile boolean closed;
    private volatile boolean leading;
    private volatile long leaseId;
    /** The create revision of the key this agent's win put; 0 before. */
    private volatile long revision;
    /** On {@link #nanos}: this agent leads until then, unless a renewal moves it on. */
    private volatile long validUntil;

    private volatile Optional<Record> seen = Optional.empty();
    private volatile Thread keeper;

    EtcdElection(
            EtcdStore store,
            EtcdClient etcd,
            ByteSequence key,
            Record self,
            Duration ttl,
            Duration timeout,
            LongSupplier nanos,
            Consumer<String> lost) {
        if (ttl.toSeconds() < 2) {
            throw new IllegalArgumentException("the leader's lease lasts at least 2 s (etcd's shortest), not " + ttl);
        }
        this.store = store;
        this.etcd = etcd;
        this.key = key;
        this.self = self;
        this.ttl = ttl;
        this.timeout = timeout;
        this.nanos = nanos;
        this.lost = lost;
        this.poll = Duration.ofMillis(Math.min(500, ttl.toMillis() / 4));
    }

    /** What the leader stops short of its lease by: etcd counts the lease from its receipt of a renewal, which comes after the asking. */
    Duration margin() {
        return Duration.ofMillis(Math.max(500, ttl.toMillis() / 5));
    }

    /**
     * Stands by until this agent leads (true), or the election is closed (false). An etcd that
     * cannot be reached is tried again; said once per different error.
     */
    public boolean campaign() throws InterruptedException {
        String failing = null;
        while (!closed) {
            try {
                if (tryToLead()) {
                    return true;
                }
                failing = null;
            } catch (StorageException e) {
                if (!e.getMessage().equals(failing)) {
                    LOG.warnf(
                            "standing by, and cannot ask etcd who leads: %s (trying again every %d ms)",
                            e.getMessage(), poll.toMillis());
                    failing = e.getMessage();
                }
            }
            Thread.sleep(poll.toMillis());
        }
        return false;
    }

    /** One try: the key is read, and taken with a new lease where it holds nothing. */
    private boolean tryToLead() throws StorageException {
        GetResponse now = await(() -> etcd.kv().get(key), "read who leads", timeout);
        if (!now.getKvs().isEmpty()) {
            Optional<Record> before = seen;
            seen = Optional.of(parse(now.getKvs().get(0)));
            if (!seen.equals(before)) {
                LOG.infof("standing by: the leader is %s", seen.get());
            }
            return false;
        }
        long asked = nanos.getAsLong();
        LeaseGrantResponse grant = await(() -> etcd.lease().grant(ttl.toSeconds()), "ask for a lease", timeout);
        TxnResponse won;
        try {
            // Made again after a try that timed out: if that one took the key, this one finds it taken, and the
            // lease given back below takes the key with it.
            won = await(
                    () -> etcd.kv()
                            .txn()
                            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                            .Then(Op.put(
                                    key,
                                    ByteSequence.from(json(self)),
                                    PutOption.builder()
                                            .withLeaseId(grant.getID())
                                            .build()))
                            .commit(),
                    "take the leader's key",
                    timeout);
        } catch (StorageException e) {
            etcd.lease().revoke(grant.getID());
            throw e;
        }
        if (!won.isSucceeded()) {
            etcd.lease().revoke(grant.getID()); // another was quicker
            return false;
        }
        return won(grant, asked, won.getHeader().getRevision());
    }

    /** The key is this agent's: it leads from now on, unless the election was closed meanwhile (the lease is given back at once). */
    private synchronized boolean won(LeaseGrantResponse grant, long asked, long keyRevision) {
        leaseId = grant.getID();
        if (closed) {
            etcd.lease().revoke(leaseId);
            return false;
        }
        revision = keyRevision;
        validUntil = asked + Duration.ofSeconds(grant.getTTL()).minus(margin()).toNanos();
        leading = true;
        seen = Optional.empty();
        store.fenceBy(key, revision, this::lose, this::leads);
        keeper = new Thread(this::keep, "slurmlet-leader-lease");
        keeper.setDaemon(true);
        keeper.start();
        LOG.infof(
                "leads the cluster (etcd lease %x of %d s, leader key revision %d)", leaseId, grant.getTTL(), revision);
        return true;
    }

    /**
     * Renews the lease every third of its time, and checks the key is still this agent's, until either
     * fails for good; no wait for etcd lasts past the moment this agent stops leading, so the loss is
     * told then, before etcd can let the lease lapse. A keeper that ends any other way tells it too.
     */
    private void keep() {
        try {
            renew();
        } catch (RuntimeException | Error e) {
            lose("the leader's lease keeper stopped: " + e);
            throw e;
        } finally {
            if (!closed && !Thread.currentThread().isInterrupted()) {
                lose("the leader's lease keeper stopped");
            }
        }
    }

    private void renew() {
        long every = ttl.toNanos() / 3;
        long next = nanos.getAsLong() + every;
        while (leading && !closed) {
            try {
                long wait = Math.min(next, validUntil) - nanos.getAsLong();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long asked = nanos.getAsLong();
            if (asked - validUntil >= 0) {
                lose(
                        "the leader's lease could not be renewed in time: etcd did not answer before this leader's own deadline");
                return;
            }
            // Each wait ends by the time this agent stops leading, so a silent etcd is found out then.
            Duration within = Duration.ofNanos(
                    Math.max(1_000_000, Math.min(Math.min(timeout.toNanos(), every), validUntil - asked)));
            try {
                LeaseKeepAliveResponse renewed =
                        await(() -> etcd.lease().keepAliveOnce(leaseId), "renew the leader's lease", within);
                if (renewed.getTTL() <= 0) {
                    lose("etcd says the leader's lease ended");
                    return;
                }
                GetResponse mine = await(() -> etcd.kv().get(key), "read the leader's key", within);
                if (mine.getKvs().isEmpty() || mine.getKvs().get(0).getCreateRevision() != revision) {
                    lose("the leader's key was removed, or holds another's");
                    return;
                }
                validUntil = Math.max(
                        validUntil,
                        asked
                                + Duration.ofSeconds(renewed.getTTL())
                                        .minus(margin())
                                        .toNanos());
                next = asked + every;
            } catch (StorageException | RuntimeException e) {
                // etcd 3.4 answers a renewal of a lapsed lease with "requested lease not found" (jetcd then fails the
                // future).
                if (e.getCause() != null
                        && String.valueOf(e.getCause().getMessage()).contains("lease not found")) {
                    lose("etcd says the leader's lease ended");
                    return;
                }
                if (nanos.getAsLong() - validUntil >= 0) {
                    lose("the leader's lease could not be renewed in time: " + e.getMessage());
                    return;
                }
                next = nanos.getAsLong()
                        + Math.min(every, Duration.ofMillis(200).toNanos());
            }
        }
    }

    /** For tests: the lease is no longer renewed, as when the process is paused or its machine is gone (nothing given back). */
    void stopRenewing() {
        if (keeper != null) {
            keeper.interrupt();
        }
    }

    /** This agent leads no more, for good: said once, and told to the caller. */
    synchronized void lose(String why) {
        if (!leading) {
            return;
        }
        leading = false;
        LOG.errorf("no longer leads the cluster: %s", why);
        lost.accept(why);
    }

    @Override
    public boolean leads() {
        return leading && !closed && nanos.getAsLong() - validUntil < 0;
    }

    @Override
    public Optional<String> leader() {
        return leads() ? Optional.empty() : seen.map(Record::toString);
    }

    /** Who leads, as last read while standing by. */
    public Optional<Record> seen() {
        return seen;
    }

    /**
     * Another agent's record that names an agents' channel over https: who leads, for a standby to
     * hand requests to and its node role to follow. Never {@code self}'s own: an agent started again
     * right after it lost the lead may still read it until the lease lapses.
     */
    public Optional<Record> seenOther(String self) {
        return other(seen, self);
    }

    /** {@code seen} if it is another agent's than {@code self} and names an agents' channel over https. */
    public static Optional<Record> other(Optional<Record> seen, String self) {
        return seen.filter(
                r -> !self.equals(r.name()) && r.agents() != null && r.agents().startsWith("https://"));
    }

    /** The create revision of the leader's key this agent put; 0 before it led. */
    public long revision() {
        return revision;
    }

    /** Stops: a leader gives its lease back, so that a standby leads within half a second rather than the lease's time. */
    @Override
    public synchronized void close() {
        closed = true;
        if (keeper != null) {
            keeper.interrupt();
        }
        if (leading) {
            leading = false;
            try {
                etcd.lease().revoke(leaseId).get(1, TimeUnit.SECONDS);
                LOG.infof("gave the leader's lease back");
            } catch (ExecutionException | TimeoutException e) {
                LOG.warnf(
                        "could not give the leader's lease back (%s): a standby leads once it lapses", e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Record parse(KeyValue kv) {
        try {
            return JSON.readValue(kv.getValue().getBytes(), Record.class);
        } catch (IOException e) {
            return new Record("(unreadable: " + kv.getValue().toString(StandardCharsets.UTF_8) + ")", "");
        }
    }

    private static byte[] json(Record r) {
        try {
            return JSON.writeValueAsBytes(r);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What one try of a request may take before it is made again, within the time the request has:
     * the client spreads requests over every member, and one cut off from the network (or just back,
     * before its peers' connections are made again) holds what it is sent with no answer until etcd's
     * own 7 s or gRPC's keepalive (13 s); waited out whole, such tries cost the election that long
     * (measured on the local cluster: a standby 30 s without a leader after the leader's machine was
     * cut off).
     */
    Duration attempt() {
        return Duration.ofMillis(Math.max(250, Math.min(1000, ttl.toMillis() / 5)));
    }

    /** etcd's answer to {@code request}, made again after each try that takes longer than {@link #attempt()}, within {@code within}. */
    private <T> T await(EtcdClient.Request<T> request, String what, Duration within) throws StorageException {
        return etcd.answered(request, what, within, attempt()).answer();
    }
}
