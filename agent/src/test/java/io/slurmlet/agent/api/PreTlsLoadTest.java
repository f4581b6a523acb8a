package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.node.LeaderJoin;
import io.slurmlet.agent.node.LeaderLink;
import io.slurmlet.agent.node.LeaderTls;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.facts.NodeFacts;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * What the agents' channel holds for clients that never get as far as a request, from many
 * addresses at once, kept up for {@link #ATTACK}: sockets that never start TLS (each reopened when
 * closed), handshakes sent a byte every half second, and connections whose second request's
 * headers come a byte every half second. Throughout, the leader's health check, a joined agent's
 * reports and polls, and the admin socket are asked in turn; every one must answer. The figures
 * (how long the attack's connections were held, the answers' latencies) are printed for
 * bench/README, never asserted as times: the bound is the header timeout (2 s in the tests).
 */
@QuarkusTest
class PreTlsLoadTest {

    static final Duration ATTACK = Duration.ofSeconds(8);
    /** Per kind: addresses, and connections from each (under the per-address cap of 32). */
    static final int ADDRESSES = 40;

    static final int EACH = 10;
    /** Sockets from one address, past its cap of 32. */
    static final int CROWD = 100;

    static final Path ADMIN_SOCKET = Path.of("target/test-leader.sock");

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Test
    void healthPollsAndTheAdminSocketAnswerWhileClientsHoldConnectionsBeforeTheirRequests() throws Exception {
        URI base = TestAgents.base();
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base, pki.caHash());
        String node = "pt" + Long.toString(System.nanoTime(), 36);
        assertEquals(200, TestAgents.join(node).status());
        LeaderLink agent = new LeaderLink(base, ca, TestAgents.credential(node));
        SSLContext tls = LeaderTls.trusting(ca);
        NodeFacts facts = TestFacts.fourCoresTwoThreads(node)
                .memoryMiB(32000)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
        agent.reportFacts(facts);

        AtomicBoolean attacking = new AtomicBoolean(true);
        Raw raw = new Raw(leader.agentPort(), attacking);
        Thread rawThread = new Thread(raw, "pre-TLS attackers");
        rawThread.start();
        List<Long> slowSecond = Collections.synchronizedList(new ArrayList<>());
        ExecutorService slow = Executors.newFixedThreadPool(ADDRESSES * EACH / 2);
        for (int i = 0; i < ADDRESSES * EACH / 2; i++) {
            String from = "127.0.8." + (1 + i % ADDRESSES);
            slow.submit(() -> {
                while (attacking.get()) {
                    slowSecond.add(slowSecondRequest(tls, leader.agentPort(), from, attacking));
                }
                return null;
            });
        }

        List<Long> health = new ArrayList<>();
        List<Long> polls = new ArrayList<>();
        List<Long> socket = new ArrayList<>();
        long start = System.nanoTime();
        while (System.nanoTime() - start < ATTACK.toNanos()) {
            long t = System.nanoTime();
            admin().get("/q/health/live").then().statusCode(200);
            health.add(ms(t));
            t = System.nanoTime();
            agent.reportFacts(facts);
            agent.poll(0, Duration.ofSeconds(1));
            polls.add(ms(t));
            t = System.nanoTime();
            assertTrue(adminSocket("/q/health/ready").startsWith("HTTP/1.1 200"), "the admin socket answers");
            socket.add(ms(t));
            Thread.sleep(100); // the pace of the legitimate callers during the attack
        }
        attacking.set(false);
        slow.shutdown();
        assertTrue(slow.awaitTermination(60, TimeUnit.SECONDS), "every slow client's connection ended");
        rawThread.join(60_000);
        assertTrue(!rawThread.isAlive() && raw.failure == null, "the raw attackers ended: " + raw.failure);
        agent.reportFacts(facts);
        TestAgents.forget(node);

        List<Long> crowd = new ArrayList<>(raw.crowd);
        Collections.sort(crowd);
        System.out.printf(
                "PreTlsLoadTest: %d sockets from one address that never start TLS: %d closed within %d ms, the other 32 "
                        + "held %d to %d ms%n",
                CROWD, CROWD - 32, crowd.get(CROWD - 33), crowd.get(CROWD - 32), crowd.get(CROWD - 1));
        System.out.printf(
                "PreTlsLoadTest: %d s from %d addresses a kind: %d sockets that never start TLS (reopened when closed: "
                        + "%d closed, held median %d ms, max %d ms), %d handshakes a byte every 500 ms (%d closed, held median %d ms, "
                        + "max %d ms), %d second requests a byte every 500 ms (%d closed, held median %d ms, max %d ms); "
                        + "health %d answers, median %d ms, max %d ms; agent report and poll %d, median %d ms, max %d ms; "
                        + "admin socket %d, median %d ms, max %d ms%n",
                ATTACK.toSeconds(),
                ADDRESSES,
                ADDRESSES * EACH,
                raw.idle.size(),
                median(raw.idle),
                max(raw.idle),
                ADDRESSES * EACH,
                raw.handshakes.size(),
                median(raw.handshakes),
                max(raw.handshakes),
                ADDRESSES * EACH / 2,
                slowSecond.size(),
                median(slowSecond),
                max(slowSecond),
                health.size(),
                median(health),
                max(health),
                polls.size(),
                median(polls),
                max(polls),
                socket.size(),
                median(socket),
                max(socket));
        assertEquals(CROWD, raw.crowd.size(), "every socket of the crowd ended");
        assertTrue(
                raw.idle.size() >= ADDRESSES * EACH
                        && raw.handshakes.size() >= ADDRESSES * EACH
                        && slowSecond.size() >= ADDRESSES,
                "the leader closed every kind of connection that never made its request");
        assertTrue(max(raw.handshakes) < 60_000 && max(slowSecond) < 60_000, "none was held until the client gave up");
    }

    /** Opens a TLS connection from {@code from}, makes one request, then sends the next one's headers a byte every 500 ms; how long the leader held it, in ms. */
    static long slowSecondRequest(SSLContext tls, int port, String from, AtomicBoolean attacking) throws IOException {
        long opened = System.nanoTime();
        try (SSLSocket s = (SSLSocket) tls.getSocketFactory()
                .createSocket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(from), 0)) {
            s.setSoTimeout(60_000);
            s.startHandshake();
            OutputStream out = s.getOutputStream();
            out.write("GET /v1/join/ca HTTP/1.1\r\nHost: leader\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            AgentChannelLimitsTest.readResponse(s);
            opened = System.nanoTime();
            byte[] next =
                    "GET /v1/join/ca HTTP/1.1\r\nHost: leader\r\nX-Slow: 0123456789012345678901234567890123456789\r\n"
                            .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; attacking.get(); i = (i + 1) % next.length) {
                out.write(next[i]);
                out.flush();
                Thread.sleep(500); // the slow client under test: a byte every 500 ms
            }
        } catch (IOException e) {
            // closed by the leader: its time for the headers was up
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ms(opened);
    }

    /** One request on the leader's unix socket (the admin API ctl uses on its machine); the answer's first line. */
    static String adminSocket(String path) throws IOException {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(ADMIN_SOCKET))) {
            c.write(ByteBuffer.wrap(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            InputStream in = java.nio.channels.Channels.newInputStream(c);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The raw attackers on one thread: {@link #EACH} sockets from each of {@link #ADDRESSES} addresses
     * that never send a byte, and as many that send a TLS ClientHello's first bytes one every 500 ms;
     * each reopened when the leader closes it, until the attack ends. How long each was held, in ms.
     */
    static final class Raw implements Runnable {
        final int port;
        final AtomicBoolean attacking;
        final List<Long> idle = new ArrayList<>();
        final List<Long> handshakes = new ArrayList<>();
        /** {@link #CROWD} sockets from one address, never reopened: how long each was held. */
        final List<Long> crowd = new ArrayList<>();

        volatile Exception failure;
        private final Map<SocketChannel, long[]> opened = new HashMap<>();
        /** A TLS 1.2 record header and the start of a ClientHello: what a handshake that never ends sends. */
        private static final byte[] HELLO = {
            0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03, 0, 0, 0, 0, 0
        };

        Raw(int port, AtomicBoolean attacking) {
            this.port = port;
            this.attacking = attacking;
        }

        @Override
        public void run() {
            try (Selector selector = Selector.open()) {
                for (int i = 0; i < CROWD; i++) {
                    open(selector, "127.0.9.1", CROWDED);
                }
                for (int a = 0; a < ADDRESSES; a++) {
                    for (int i = 0; i < EACH; i++) {
                        open(selector, "127.0.6." + (1 + a), IDLE);
                        open(selector, "127.0.7." + (1 + a), HANDSHAKE);
                    }
                }
                long lastByte = System.nanoTime();
                ByteBuffer sink = ByteBuffer.allocate(4096);
                while (!opened.isEmpty()) {
                    selector.select(100);
                    for (SelectionKey key : selector.selectedKeys()) {
                        SocketChannel c = (SocketChannel) key.channel();
                        int n;
                        try {
                            sink.clear();
                            n = c.read(sink);
                        } catch (IOException e) {
                            n = -1; // reset
                        }
                        if (n < 0) {
                            closed(selector, c, key);
                        }
                    }
                    selector.selectedKeys().clear();
                    if (System.nanoTime() - lastByte > 500_000_000L) {
                        lastByte = System.nanoTime();
                        for (var e : new ArrayList<>(opened.entrySet())) {
                            long[] s = e.getValue();
                            if (s[1] == HANDSHAKE && s[2] < HELLO.length) {
                                try {
                                    e.getKey().write(ByteBuffer.wrap(HELLO, (int) s[2], 1));
                                    s[2]++;
                                } catch (IOException gone) {
                                    closed(selector, e.getKey(), e.getKey().keyFor(selector));
                                }
                            }
                        }
                    }
                    if (!attacking.get()) {
                        for (SocketChannel c : new ArrayList<>(opened.keySet())) {
                            closed(selector, c, c.keyFor(selector));
                        }
                    }
                }
            } catch (Exception e) {
                failure = e;
            }
        }

        static final long HANDSHAKE = 0;
        static final long IDLE = -1;
        static final long CROWDED = -2;

        /** s[0]: when opened; s[1]: its kind; s[2]: bytes of the hello sent. */
        private void open(Selector selector, String from, long kind) throws IOException {
            SocketChannel c = SocketChannel.open();
            c.bind(new InetSocketAddress(from, 0));
            c.connect(new InetSocketAddress("127.0.0.1", port));
            c.configureBlocking(false);
            c.register(selector, SelectionKey.OP_READ);
            opened.put(c, new long[] {System.nanoTime(), kind, 0});
            c.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
            fromOf.put(c, from);
        }

        private final Map<SocketChannel, String> fromOf = new HashMap<>();

        private void closed(Selector selector, SocketChannel c, SelectionKey key) throws IOException {
            long[] s = opened.remove(c);
            String from = fromOf.remove(c);
            if (key != null) {
                key.cancel();
            }
            c.close();
            if (s == null) {
                return;
            }
            if (s[1] == CROWDED) {
                crowd.add(ms(s[0]));
            } else if (attacking.get()) {
                (s[1] == IDLE ? idle : handshakes).add(ms(s[0]));
                open(selector, from, s[1]);
            }
        }
    }

    static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2);
    }

    static long max(List<Long> values) {
        return values.isEmpty() ? -1 : Collections.max(values);
    }
}
