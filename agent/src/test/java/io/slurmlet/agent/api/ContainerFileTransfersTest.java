package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.node.LeaderJoin;
import io.slurmlet.agent.node.LeaderLink;
import io.slurmlet.agent.node.LeaderTls;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader sending the files it holds on the agents' channel: one at a time to each machine, so
 * that one machine cannot hold every turn, and a transfer the machine stops reading is cut within
 * slurmlet.leader.containers.part-timeout (2 s in the tests' application.properties), its turn freed.
 */
@QuarkusTest
class ContainerFileTransfersTest {

    static final String FILE = "enroot_4.1.2-1_amd64.deb";
    /** Far more than the kernel's socket buffers between a reader that stopped and the leader hold on loopback. */
    static final byte[] BYTES = random(7 << 20);

    static final String SHA256 = io.slurmlet.agent.reconcile.ManagedFiles.sha256(BYTES);
    static final String PATH = ArtifactTable.LEADER_FILES + SHA256 + "/" + FILE;

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Inject
    AgentConfig config;

    @Inject
    io.slurmlet.agent.store.Store store;

    private SSLContext tls;
    private X509Certificate ca;
    private final List<SSLSocket> sockets = new ArrayList<>();

    static byte[] random(int size) {
        byte[] bytes = new byte[size];
        new java.util.Random(11).nextBytes(bytes);
        return bytes;
    }

    URI base() {
        return URI.create("https://127.0.0.1:" + leader.agentPort());
    }

    @BeforeEach
    void handTheFileToTheLeader() throws Exception {
        forgetContainerFiles();
        admin().contentType("application/octet-stream")
                .body(BYTES)
                .put("/v1/slurm/containers/files/" + FILE + "?sha256=" + SHA256)
                .then()
                .statusCode(200);
        ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        tls = LeaderTls.trusting(ca);
    }

    @AfterEach
    void forget() throws IOException {
        for (SSLSocket s : sockets) {
            s.close();
        }
        forgetContainerFiles();
    }

    /** No file handed to the leader stays for the other tests of this application (containers=true's check counts them). */
    void forgetContainerFiles() throws IOException {
        for (String folder : List.of("container-files", "container-parts")) {
            for (var e : store.list(folder).entrySet()) {
                store.delete(e.getKey(), e.getValue().version());
            }
        }
    }

    /** A machine joined now: its credential. */
    String joined(String node) throws Exception {
        String token = admin().contentType("application/json")
                .body("{\"description\": \"ContainerFileTransfersTest\"}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .path("token");
        return LeaderJoin.join(base(), ca, token, node).credential();
    }

    /** What a GET of the file answers {@code credential} from loopback address {@code from}: its head read, its body left unread. */
    SSLSocket ask(String from, String credential) throws Exception {
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket();
        sockets.add(socket);
        socket.setReceiveBufferSize(8192); // a reader that stops stops the leader soon
        socket.bind(new java.net.InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new java.net.InetSocketAddress(InetAddress.getByName("127.0.0.1"), leader.agentPort()), 10_000);
        socket.setSoTimeout(20_000);
        socket.getOutputStream()
                .write(("GET " + PATH + " HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer " + credential + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    /** The head of the answer on {@code socket}, to its blank line. */
    static String head(SSLSocket socket) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the leader closed the connection after " + head);
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    static long contentLength(String head) {
        return head.lines()
                .filter(l -> l.toLowerCase(Locale.ROOT).startsWith("content-length:"))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).strip()))
                .findFirst()
                .orElseThrow();
    }

    /** The body after {@code head}: {@code length} bytes, or fewer where the connection ends or is reset first. */
    static byte[] body(SSLSocket socket, long length) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        try {
            InputStream in = socket.getInputStream();
            for (int n;
                    got.size() < length
                            && (n = in.read(buf, 0, (int) Math.min(buf.length, length - got.size()))) >= 0; ) {
                got.write(buf, 0, n);
            }
        } catch (IOException e) {
            // reset: what came before is what the machine got
        }
        return got.toByteArray();
    }

    /** Asks again, every 100 ms, until the leader sends the file: how long that took, each refusal's head checked. */
    Duration untilSent(String from, String credential, String node) {
        long start = System.nanoTime();
        await("the leader sends the file again")
                .atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    SSLSocket socket = ask(from, credential);
                    String head = head(socket);
                    if (head.startsWith("HTTP/1.1 200")) {
                        assertArrayEquals(BYTES, body(socket, contentLength(head)), "the file, whole");
                        return true;
                    }
                    assertTrue(head.startsWith("HTTP/1.1 429"), head);
                    String said = new String(body(socket, contentLength(head)), StandardCharsets.UTF_8);
                    assertTrue(said.contains("one is still going to " + node), head);
                    socket.close();
                    return false;
                });
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void aMachineIsSentOneFileAtATimeWhileAnotherMachineIsSentItsOwn() throws Exception {
        String node = "xfer" + Long.toString(System.nanoTime(), 36);
        String credential = joined(node);
        SSLSocket first = ask("127.0.7.1", credential);
        assertTrue(head(first).startsWith("HTTP/1.1 200"), "the first file goes to " + node);

        SSLSocket second = ask("127.0.7.1", credential);
        String refused = head(second);
        assertTrue(refused.startsWith("HTTP/1.1 429"), refused);
        assertTrue(refused.contains("\r\nRetry-After: 5\r\n"), refused);
        String said = new String(body(second, contentLength(refused)), StandardCharsets.UTF_8);
        assertTrue(
                said.startsWith(
                        ("{\"error\":\"the leader sends each machine one file at a time, and one is still going to %s: fetch "
                                        + "them one after another (this machine's next pass fetches %s again)\",")
                                .formatted(node, FILE)),
                said);

        // Another machine meanwhile: sent its file whole, over the client every agent fetches with, and again at once
        // (its
        // turn is free once the last byte has gone out, before it asks on the same connection for its next file).
        String other = node + "b";
        LeaderLink link = new LeaderLink(base(), ca, joined(other));
        for (int i = 0; i < 2; i++) {
            try (InputStream in = link.open(PATH, Duration.ofSeconds(30))) {
                assertArrayEquals(BYTES, in.readAllBytes());
            }
        }

        // The first machine's connection closed: its turn is free at once, not at the part timeout.
        first.close();
        Duration freed = untilSent("127.0.7.1", credential, node);
        assertTrue(freed.compareTo(Duration.ofSeconds(1)) < 0, "freed when the connection closed: " + freed);
    }

    @Test
    void aMachineThatStopsReadingIsCutWithinThePartTimeoutAndItsTurnFreed() throws Exception {
        Duration partTimeout = config.leader().containers().partTimeout();
        String node = "stall" + Long.toString(System.nanoTime(), 36);
        String credential = joined(node);
        SSLSocket stalled = ask("127.0.7.2", credential);
        String head = head(stalled);
        assertTrue(head.startsWith("HTTP/1.1 200"), head);
        assertEquals(BYTES.length, contentLength(head));
        byte[] some = stalled.getInputStream().readNBytes(65536);
        // It reads no more from here: the leader's writes stop going out once the buffers between are full.
        long stopped = System.nanoTime();
        String held = head(ask("127.0.7.2", credential));
        assertTrue(held.startsWith("HTTP/1.1 429"), "its turn is held while it stalls: " + held);
        untilSent("127.0.7.2", credential, node);
        Duration freed = Duration.ofNanos(System.nanoTime() - stopped);
        assertTrue(
                freed.compareTo(partTimeout.plusSeconds(3)) < 0,
                "cut within the part timeout (" + partTimeout + "): " + freed);

        // The machine sees a cut transfer: the connection ends before the bytes its Content-Length promised.
        byte[] rest = body(stalled, BYTES.length - some.length);
        assertTrue(
                some.length + rest.length < BYTES.length,
                "a short file is never handed over as whole: " + (some.length + rest.length));
    }
}
