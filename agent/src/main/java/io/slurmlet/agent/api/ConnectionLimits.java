package io.slurmlet.agent.api;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.traffic.GlobalTrafficShapingHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerImpl;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.core.net.impl.SslChannelProvider;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.jboss.logging.Logger;

/**
 * What the agents' channel gives a connection before anything on it is authenticated, from the
 * moment the kernel hands it over, ahead of the TLS handshake: at most {@code perPeer} connections
 * open from one address and {@code total} in all (an agent holds one or two: its long poll, and a
 * report now and then), a connection beyond either closed at once, before any TLS work; and
 * {@code headerTimeout} for the handshake and a request's line and headers, for every request on a
 * connection: from its accept for the first, from the first byte after the previous request was
 * read for the next. A connection that keeps its time closes when it is up; so no address can hold
 * the leader's descriptors, and a slow client holds one for seconds, not for the 150 s a connection
 * may be idle between requests (a long poll's wait).
 */
final class ConnectionLimits {

    private static final Logger LOG = Logger.getLogger(ConnectionLimits.class);
    private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();
    private static final AttributeKey<Clock> CLOCK = AttributeKey.valueOf("slurmlet.request-clock");

    private final int perPeer;
    private final int total;
    private final Duration headerTimeout;
    private final Map<String, Integer> openByPeer = new HashMap<>();
    private int open;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private volatile long lastLog = System.nanoTime() - LOG_EVERY_NANOS;

    ConnectionLimits(int perPeer, int total, Duration headerTimeout) {
        this.perPeer = perPeer;
        this.total = total;
        this.headerTimeout = headerTimeout;
    }

    /**
     * A connection the kernel handed over, nothing read from it yet: counted, or closed at once when
     * over a limit (false). Counted out when it closes; its first request's clock starts now.
     */
    boolean accepted(Channel channel) {
        String peer = channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress()
                : "unknown";
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
            warn(
                    "the agents' channel closed a new connection from %s before its TLS handshake: %d open from there (at most %d, "
                            + "slurmlet.leader.agent-connections-per-peer), %d in all (at most %d, slurmlet.leader.agent-connections); "
                            + "%d closed so far",
                    peer, fromPeer, perPeer, open(), total, n);
            channel.close();
            return false;
        }
        Clock clock = new Clock(channel);
        channel.attr(CLOCK).set(clock);
        // First in the pipeline, ahead of TLS: it sees every byte as it arrives.
        channel.pipeline().addFirst("slurmlet-request-clock", clock);
        clock.start();
        channel.closeFuture().addListener(f -> {
            clock.stop();
            synchronized (this) {
                openByPeer.computeIfPresent(peer, (k, count) -> count <= 1 ? null : count - 1);
                open--;
            }
        });
        return true;
    }

    /**
     * An HTTP server whose every accepted connection goes through {@link #accepted} before Vert.x
     * sets it up (TLS first): Vert.x's own connection handler runs only after the handshake. The
     * hook is Vert.x 4's server's own seam for a new channel (what its traffic shaping uses).
     */
    HttpServer server(Vertx vertx, HttpServerOptions options) {
        return new HttpServerImpl((VertxInternal) vertx, options) {
            @Override
            protected BiConsumer<Channel, SslChannelProvider> childHandler(
                    ContextInternal context, SocketAddress address, GlobalTrafficShapingHandler shaping) {
                var vertxs = super.childHandler(context, address, shaping);
                return (channel, ssl) -> {
                    if (accepted(channel)) {
                        vertxs.accept(channel, ssl);
                    }
                };
            }
        };
    }

    /** A request's line and headers arrived: its clock stops; the next starts with the first byte after this one is read. */
    void requested(HttpServerRequest request) {
        HttpConnection connection = request.connection();
        if (connection instanceof ConnectionBase base) {
            Clock clock = base.channel().attr(CLOCK).get();
            if (clock != null) {
                clock.stop();
                clock.current = request;
            }
        }
    }

    synchronized int open() {
        return open;
    }

    /** Connections closed for being over a limit, and for not finishing a handshake or a request's headers in time, since start. */
    long refused() {
        return refused.get();
    }

    long timedOut() {
        return timedOut.get();
    }

    /**
     * One connection's clock, run on its event loop: started at accept and, between requests, by
     * the first byte that arrives after the previous request was read whole; stopped when a
     * request's headers are in. A byte that arrives while a request is still being read, or while
     * its answer is awaited, is that request's: no clock.
     */
    private final class Clock extends ChannelInboundHandlerAdapter {
        private final Channel channel;
        private ScheduledFuture<?> running;
        /** The request being read or answered; null before the first. */
        private HttpServerRequest current;
        /** Whether the first request's clock ran (it starts at accept). */
        private boolean first = true;

        Clock(Channel channel) {
            this.channel = channel;
        }

        void start() {
            if (running == null) {
                running = channel.eventLoop()
                        .schedule(
                                () -> {
                                    running = null;
                                    timedOut.incrementAndGet();
                                    channel.close();
                                },
                                headerTimeout.toNanos(),
                                TimeUnit.NANOSECONDS);
            }
        }

        void stop() {
            first = false;
            if (running != null) {
                running.cancel(false);
                running = null;
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!first && (current == null || current.isEnded())) {
                start();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public boolean isSharable() {
            return false;
        }
    }

    private void warn(String format, Object... args) {
        long now = System.nanoTime();
        if (now - lastLog >= LOG_EVERY_NANOS) {
            lastLog = now;
            LOG.warnf(format, args);
        }
    }
}
