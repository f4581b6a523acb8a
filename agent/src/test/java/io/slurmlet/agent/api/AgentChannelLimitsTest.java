package io.slurmlet.agent.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.node.LeaderJoin;
import io.slurmlet.agent.node.LeaderTls;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * What the agents' channel gives a client it has not authenticated: no body read before the token,
 * a small one for a join, seconds for a first request (2 s in the tests' application.properties), and
 * at most 32 connections from one address.
 */
@QuarkusTest
class AgentChannelLimitsTest {

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Inject
    io.slurmlet.agent.trust.AgentCredentials credentials;

    SSLSocket connect() throws Exception {
        return connect("127.0.0.1");
    }

    /**
     * Fetched once for the class, not once a test (JUnit makes an instance a test): each fetch leaves
     * its client's idle connection from 127.0.0.1 open, and the channel holds 32 from one address for
     * all the tests of this application.
     */
    private static SSLContext tls;

    /** A TLS connection from {@code from}, a loopback address (Linux routes all of 127/8 to lo). */
    SSLSocket connect(String from) throws Exception {
        return handshake(from, null, null);
    }

    /** Trusting the cluster's CA, fetched once (each fetch holds a connection of its own's client). */
    SSLContext tls() throws Exception {
        synchronized (AgentChannelLimitsTest.class) {
            if (tls == null) {
                X509Certificate ca =
                        LeaderJoin.fetchPinnedCa(URI.create("https://127.0.0.1:" + leader.agentPort()), pki.caHash());
                tls = LeaderTls.trusting(ca);
            }
            return tls;
        }
    }

    /** Everything the server sends until it closes the connection (or 10 s pass: an exception). */
    static String readToClose(SSLSocket socket) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) >= 0; ) {
            got.write(buf, 0, n);
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    static boolean closedByServer(java.net.Socket socket, int waitMillis) throws IOException {
        socket.setSoTimeout(waitMillis);
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    @Test
    void aJoinWithAWrongTokenIsRefusedBeforeItsBodyIsReadAndTheConnectionClosed() throws Exception {
        try (SSLSocket s = connect()) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/join HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer wrong\r\n"
                            + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[16_384]);
            out.flush();
            String answer = readToClose(s); // the server closes: the other 983,616 bytes are never taken in
            assertTrue(answer.startsWith("HTTP/1.1 401"), answer);
            assertTrue(answer.contains("the join token is missing, wrong, expired or revoked"), answer);
            assertTrue(
                    answer.toLowerCase(java.util.Locale.ROOT).contains("\r\nconnection: close\r\n"),
                    "the client is told: " + answer);
        }
    }

    @Test
    void refusedCallsCloseTheirConnectionsAndAreCountedOut() throws Exception {
        java.net.http.HttpClient client =
                java.net.http.HttpClient.newBuilder().sslContext(tls()).build();
        for (int i = 0; i < 100; i++) {
            var r = client.send(
                    java.net.http.HttpRequest.newBuilder(
                                    URI.create("https://127.0.0.1:" + leader.agentPort() + "/v1/join"))
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"node\": \"x\"}"))
                            .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(401, r.statusCode(), "call " + i + ": " + r.body());
        }
    }

    @Test
    void aJoinsBodyIsAName() throws Exception {
        String token = io.slurmlet.agent.api.ApiTestSupport.admin()
                .contentType("application/json")
                .body("{}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .path("token");
        try (SSLSocket s = connect()) {
            String body = "{\"node\": \"" + "x".repeat(5000) + "\"}";
            s.getOutputStream()
                    .write(("POST /v1/join HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer " + token + "\r\n"
                                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                                    + body)
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = readToClose(s);
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(
                    answer.contains("a join's body is {\\\"node\\\": \\\"NAME\\\"}, not more than 4096 bytes"), answer);
        }
    }

    @Test
    void aJoinWhoseChunksCannotBeReadIsAnsweredAndJoinsNothing() throws Exception {
        String token = io.slurmlet.agent.api.ApiTestSupport.admin()
                .contentType("application/json")
                .body("{}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .path("token");
        try (SSLSocket s = connect()) {
            s.getOutputStream()
                    .write(("POST /v1/join HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer " + token + "\r\n"
                                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{\"node\": \"chunky\"}\r\n0\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = readToClose(s);
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(
                    answer.contains("the request's body could not be read (Invalid character in chunk size)"), answer);
        }
        assertTrue(credentials.joinedAs("chunky").isEmpty(), "nothing joined");
    }

    @Test
    void aConnectionThatSendsNoRequestIsClosedWhenItsTimeIsUp() throws Exception {
        try (SSLSocket silent = connect();
                SSLSocket slow = connect()) {
            slow.getOutputStream().write("GET /v1/join/ca HTTP/1.1\r\nHost: le".getBytes(StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            assertTrue(closedByServer(silent, 10_000), "a silent connection is closed");
            assertTrue(closedByServer(slow, 10_000), "one whose headers never end is closed");
            assertTrue(System.nanoTime() - start < 9_000_000_000L);
        }
    }

    /**
     * Sockets that never start TLS count against their address from their accept: the 33rd from one
     * address is closed at once, before any handshake (it was counted only after one, and held its
     * descriptor for the whole handshake timeout), and each of the others when its time is up.
     */
    @Test
    void socketsThatNeverHandshakeAreCountedAtAcceptAndTheOneOverTheShareIsClosedAtOnce() throws Exception {
        List<java.net.Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) {
                java.net.Socket s = new java.net.Socket(
                        java.net.InetAddress.getByName("127.0.0.1"),
                        leader.agentPort(),
                        java.net.InetAddress.getByName("127.0.0.3"),
                        0);
                held.add(s);
            }
            try (java.net.Socket over = new java.net.Socket(
                    java.net.InetAddress.getByName("127.0.0.1"),
                    leader.agentPort(),
                    java.net.InetAddress.getByName("127.0.0.3"),
                    0)) {
                assertTrue(closedByServer(over, 1_000), "the 33rd is closed at once, before a handshake");
            }
            for (java.net.Socket s : held) {
                assertTrue(closedByServer(s, 10_000), "a socket that never handshakes is closed when its time is up");
            }
        } finally {
            for (java.net.Socket s : held) {
                s.close();
            }
        }
    }

    /** A second request on a connection gets the same time for its headers as the first, from its first byte. */
    @Test
    void aSecondRequestWhoseHeadersNeverEndIsClosedWhenItsTimeIsUpAndAnIdleOneIsKept() throws Exception {
        try (SSLSocket idle = connect("127.0.0.4");
                SSLSocket slow = connect("127.0.0.4")) {
            for (SSLSocket s : List.of(idle, slow)) {
                s.getOutputStream()
                        .write("GET /v1/join/ca HTTP/1.1\r\nHost: leader\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                assertTrue(readResponse(s).startsWith("HTTP/1.1 200 OK"));
            }
            slow.getOutputStream().write("GET /v1/join/ca HTTP/1.1\r\nHost: le".getBytes(StandardCharsets.US_ASCII));
            slow.getOutputStream().flush();
            assertTrue(
                    closedByServer(slow, 10_000),
                    "the second request's headers had their time (the idle timeout is 150 s)");
            assertFalse(closedByServer(idle, 1_000), "a kept-alive connection that sends nothing is no request: kept");
            idle.getOutputStream()
                    .write("GET /v1/join/ca HTTP/1.1\r\nHost: leader\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            assertEquals(
                    "HTTP/1.1 200 OK",
                    readToClose(idle).lines().findFirst().orElse(""),
                    "and answered at its next request");
        }
    }

    /** One whole response (its headers, then Content-Length bytes) from {@code socket}, which stays open. */
    static String readResponse(SSLSocket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed in the headers: " + head);
            }
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.US_ASCII);
        int length = headers.lines()
                .filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:"))
                .map(l -> Integer.parseInt(l.substring(15).strip()))
                .findFirst()
                .orElse(0);
        return headers + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    @Test
    void oneAddressHoldsNoMoreConnectionsThanItsShare() throws Exception {
        List<SSLSocket> held = new ArrayList<>();
        try {
            int open = 0;
            boolean refused = false;
            for (int i = 0; i < 33 && !refused; i++) {
                SSLSocket s;
                try {
                    // From an address of its own: the other tests' agents hold connections from 127.0.0.1.
                    s = connect("127.0.0.2");
                } catch (IOException e) {
                    refused = true;
                    break;
                }
                held.add(s);
                // A request stops the first-request clock; the connection then stays (keep-alive).
                s.getOutputStream()
                        .write("GET /v1/join/ca HTTP/1.1\r\nHost: leader\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                if (closedByServer(s, 300)) {
                    refused = true;
                } else {
                    open++;
                }
            }
            assertTrue(refused, "the 33rd connection from 127.0.0.2 is closed at once");
            assertEquals(32, open, "32 are held");
        } finally {
            for (SSLSocket s : held) {
                s.close();
            }
        }
        // The channel counts a connection out once it sees it closed: asked again until it has.
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptionsInstanceOf(IOException.class)
                .untilAsserted(() -> {
                    try (SSLSocket s = connect("127.0.0.2")) {
                        s.getOutputStream()
                                .write("GET /v1/join/ca HTTP/1.1\r\nHost: leader\r\nConnection: close\r\n\r\n"
                                        .getBytes(StandardCharsets.US_ASCII));
                        String answer = readToClose(s);
                        assertEquals(
                                "HTTP/1.1 200 OK",
                                answer.lines().findFirst().orElse(""),
                                "closed connections are counted out");
                    }
                });
    }

    /** A handshake from {@code from} offering only {@code protocol} and {@code suite}, where given (null: the JDK's defaults). */
    SSLSocket handshake(String from, String protocol, String suite) throws Exception {
        SSLSocket socket = (SSLSocket) tls().getSocketFactory()
                .createSocket(
                        java.net.InetAddress.getByName("127.0.0.1"),
                        leader.agentPort(),
                        java.net.InetAddress.getByName(from),
                        0);
        socket.setSoTimeout(10_000);
        if (protocol != null) {
            socket.setEnabledProtocols(new String[] {protocol});
        }
        if (suite != null) {
            socket.setEnabledCipherSuites(new String[] {suite});
        }
        try {
            socket.startHandshake();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
    }

    @Test
    void theChannelSpeaksTls13AndTls12WithForwardSecretAeadSuitesOnly() throws Exception {
        try (SSLSocket s = handshake("127.0.6.1", "TLSv1.3", null)) {
            org.junit.jupiter.api.Assertions.assertEquals(
                    "TLSv1.3", s.getSession().getProtocol());
        }
        for (String suite : ChannelTls.CIPHER_SUITES.stream()
                .filter(c -> c.startsWith("TLS_ECDHE_"))
                .toList()) {
            try (SSLSocket s = handshake("127.0.6.2", "TLSv1.2", suite)) {
                org.junit.jupiter.api.Assertions.assertEquals(
                        suite, s.getSession().getCipherSuite());
            }
        }
        // CBC suites, which BoringSSL would otherwise take for the leader's key, and TLS 1.1: refused.
        for (String suite : List.of(
                "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
                "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
                "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256")) {
            org.junit.jupiter.api.Assertions.assertThrows(
                    IOException.class,
                    () -> handshake("127.0.6.3", "TLSv1.2", suite).close(),
                    suite);
        }
        org.junit.jupiter.api.Assertions.assertThrows(
                IOException.class, () -> handshake("127.0.6.4", "TLSv1.1", null).close(), "TLS 1.1");
    }
}
