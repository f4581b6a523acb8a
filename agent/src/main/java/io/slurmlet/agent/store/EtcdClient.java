package io.slurmlet.agent.store;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.jboss.logging.Logger;

/**
 * The etcd clients of one store, and how a request reaches an answer through them: each try goes to
 * the member that answered last, one that takes too long is made again at the next, until the
 * store's time is spent, and what could not be done is said with the endpoints as the admin wrote
 * them. It also turns the state's keys into etcd's, under the store's prefix, and back.
 */
final class EtcdClient implements AutoCloseable {

    /** The store's log: an operator reads what the store said, whichever of its parts said it. */
    private static final Logger LOG = Logger.getLogger(EtcdStore.class);

    /** One try's time: ample for a member that answers (milliseconds here), and five tries in the default 5 s. */
    private static final Duration ATTEMPT = Duration.ofSeconds(1);

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

    /** An answer, and how many tries it took. */
    record Tried<T>(T answer, int tries) {}

    /** A request to etcd, made anew at each try (one refused before it is sent, as by the fence, throws). */
    @FunctionalInterface
    interface Request<T> {
        CompletableFuture<T> send() throws StorageException;
    }

    EtcdClient(Client client, List<Client> members, String prefix, String endpoints, Duration timeout) {
        if (!prefix.startsWith("/") || !prefix.endsWith("/") || prefix.contains("//")) {
            throw new IllegalArgumentException("an etcd prefix starts and ends with / (as /slurmlet/): " + prefix);
        }
        this.client = client;
        this.members = List.copyOf(members);
        this.prefix = prefix;
        this.endpoints = endpoints;
        this.timeout = timeout;
    }

    /**
     * A client of the etcd members at {@code endpoints} (https ones with the CA, certificate and key
     * given: etcd checks the client certificate).
     *
     * @param named the endpoints as the admin wrote them, for errors
     */
    static Client client(
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

    /** The KV requests of the member that answered last. */
    KV kv() {
        return members.get(member.get() % members.size()).getKVClient();
    }

    /** The lease requests of the member that answered last. */
    Lease lease() {
        return members.get(member.get() % members.size()).getLeaseClient();
    }

    /** The watches, through the client of every member. */
    Watch watches() {
        return client.getWatchClient();
    }

    /** What a request may take in all, every try together. */
    Duration timeout() {
        return timeout;
    }

    /** The prefix every key of the store is under, as {@code /slurmlet/}. */
    String prefix() {
        return prefix;
    }

    /** The endpoints as the admin wrote them, for errors. */
    String endpoints() {
        return endpoints;
    }

    /** Where {@code key} is kept, for errors. */
    String where(String key) {
        return "etcd key " + prefix + key + " (" + endpoints + ")";
    }

    /** The etcd key of the state's {@code key}: under the prefix. */
    ByteSequence bytes(String key) {
        return ByteSequence.from(prefix + key, StandardCharsets.UTF_8);
    }

    /** The state's key of an etcd key under the prefix. */
    String keyOf(KeyValue v) {
        return v.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length());
    }

    /** A count of the keys under the prefix: the cheapest request etcd answers only when it can. */
    GetResponse reach(Duration within) throws StorageException {
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

    /**
     * What one try of a request may take before it is made again: the client spreads requests over
     * every member, and one cut off from the others (or just back, its peers' connections not yet
     * made again) holds what it is sent until etcd's own 7 s; waited out whole, a third of all
     * requests would fail while one member is away (measured on the local cluster).
     */
    Duration attempt() {
        return timeout.compareTo(ATTEMPT) < 0 ? timeout : ATTEMPT;
    }

    /** etcd's answer to {@code request} within the store's time, tried again as {@link #answered} says. */
    <T> Tried<T> await(Request<T> request, String what) throws StorageException {
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
                                    .formatted(what, endpoints, said(within), tries),
                            e);
                }
            }
        }
    }

    /** etcd's answer within {@code within}; else a StorageException that says what could not be done, where, and why. */
    static <T> T answered(CompletableFuture<T> answer, String what, String endpoints, Duration within)
            throws StorageException {
        try {
            return answer.get(within.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new StorageException(
                    "cannot %s: etcd (%s) did not answer within %s".formatted(what, endpoints, said(within)), e);
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

    /** A time as an error says it: whole seconds in s, else in ms. */
    private static String said(Duration within) {
        return within.toMillis() % 1000 == 0 ? within.toSeconds() + " s" : within.toMillis() + " ms";
    }

    /** Closes the client of every member, then each member's own. */
    @Override
    public void close() {
        client.close();
        members.stream().filter(m -> m != client).forEach(Client::close);
    }
}
