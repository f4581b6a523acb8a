package io.slurmlet.agent.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the agents' channel gives a connection before anything on it is authenticated: at most
 * {@code perPeer} connections open from one address and {@code total} in all (an agent holds one
 * or two: its long poll, and a report now and then), and a first request within
 * {@code headerTimeout} of the connection opening. A connection beyond a limit is closed at once,
 * one that sends no request in time when its time is up; so no address can hold the leader's
 * connections, and a slow client holds one for seconds, not forever.
 */
final class ConnectionLimits {

    private static final Logger LOG = Logger.getLogger(ConnectionLimits.class);
    private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

    private final Vertx vertx;
    private final int perPeer;
    private final int total;
    private final Duration headerTimeout;
    private final Map<String, Integer> openByPeer = new HashMap<>();
    private int open;
    private final Map<HttpConnection, Long> awaitingRequest = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private volatile long lastLog = System.nanoTime() - LOG_EVERY_NANOS;

    ConnectionLimits(Vertx vertx, int perPeer, int total, Duration headerTimeout) {
        this.vertx = vertx;
        this.perPeer = perPeer;
        this.total = total;
        this.headerTimeout = headerTimeout;
    }

    /** A connection is open (its TLS handshake done): counted, or closed when over a limit. */
    void opened(HttpConnection connection) {
        String peer = connection.remoteAddress() == null ? "unknown" : connection.remoteAddress().hostAddress();
        int fromPeer;
        boolean allowed;
        synchronized (this) {
            fromPeer = openByPeer.getOrDefault(peer, 0);
            allowed = fromPeer < perPeer && open < total;
            if (allowed) {
                openByPeer.put(peer, fromPeer + 1);
                open++;
            }
        }
        if (!allowed) {
            long n = refused.incrementAndGet();
            warn("the agents' channel closed a new connection from %s: %d open from there (at most %d, "
                    + "slurmlet.leader.agent-connections-per-peer), %d in all (at most %d, slurmlet.leader.agent-connections); "
                    + "%d closed so far", peer, fromPeer, perPeer, open(), total, n);
            connection.close();
            return;
        }
        long timer = vertx.setTimer(headerTimeout.toMillis(), t -> {
            if (awaitingRequest.remove(connection) != null) {
                timedOut.incrementAndGet();
                connection.close();
            }
        });
        awaitingRequest.put(connection, timer);
        connection.closeHandler(v -> {
            Long pending = awaitingRequest.remove(connection);
            if (pending != null) {
                vertx.cancelTimer(pending);
            }
            synchronized (this) {
                openByPeer.computeIfPresent(peer, (k, count) -> count <= 1 ? null : count - 1);
                open--;
            }
        });
    }

    /** A request's line and headers arrived on {@code connection}: its first-request clock stops. */
    void requested(HttpConnection connection) {
        Long pending = awaitingRequest.remove(connection);
        if (pending != null) {
            vertx.cancelTimer(pending);
        }
    }

    synchronized int open() {
        return open;
    }

    /** Connections closed for being over a limit, and for sending no request in time, since start. */
    long refused() {
        return refused.get();
    }

    long timedOut() {
        return timedOut.get();
    }

    private void warn(String format, Object... args) {
        long now = System.nanoTime();
        if (now - lastLog >= LOG_EVERY_NANOS) {
            lastLog = now;
            LOG.warnf(format, args);
        }
    }
}
