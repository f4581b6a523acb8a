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
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * The attack that once stopped the leader, without any credential: 150 connections each sending a
 * 1 MB join with a wrong token, and 1,000 connections that never finish their headers, from 50
 * addresses. While it runs, the leader keeps answering its health check and a joined agent's
 * reports; afterwards it holds none of the attacker's connections. The figures are printed
 * (latencies and how long the attack's connections lasted), never asserted as times.
 */
@QuarkusTest
class UnauthenticatedLoadTest {

    static final int BIG_JOINS = 150;
    static final int SLOW_HEADERS = 1000;

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Test
    void theLeaderKeepsAnsweringItsHealthAndItsAgentsWhileUnauthenticatedClientsPress() throws Exception {
        URI base = URI.create("https://127.0.0.1:" + leader.agentPort());
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base, pki.caHash());
        String token = admin().contentType("application/json")
                .body("{}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .path("token");
        String node = "ld" + Long.toString(System.nanoTime(), 36);
        LeaderLink agent =
                new LeaderLink(base, ca, LeaderJoin.join(base, ca, token, node).credential());
        SSLContext tls = LeaderTls.trusting(ca);
        int port = leader.agentPort();

        AtomicBoolean attacking = new AtomicBoolean(true);
        AtomicInteger refusedJoins = new AtomicInteger();
        List<Long> slowLifetimes = Collections.synchronizedList(new ArrayList<>());
        ExecutorService attackers = Executors.newFixedThreadPool(64);
        long start = System.nanoTime();
        for (int i = 0; i < BIG_JOINS; i++) {
            String from = "127.0.4." + (1 + i % 10);
            attackers.submit(() -> {
                try (SSLSocket s = connect(tls, port, from)) {
                    OutputStream out = s.getOutputStream();
                    out.write(("POST /v1/join HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer wrong\r\n"
                                    + "Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] chunk = new byte[65536];
                    for (int n = 0; n < 16; n++) {
                        out.write(chunk);
                    }
                    out.flush();
                    if (new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII)
                            .startsWith("HTTP/1.1 401")) {
                        refusedJoins.incrementAndGet();
                    }
                } catch (IOException e) {
                    refusedJoins.incrementAndGet(); // closed while it was still sending: never read
                }
                return null;
            });
        }
        for (int i = 0; i < SLOW_HEADERS; i++) {
            String from = "127.0.5." + (1 + i % 40);
            attackers.submit(() -> {
                long opened = System.nanoTime();
                try (SSLSocket s = connect(tls, port, from)) {
                    s.getOutputStream()
                            .write("GET /v1/join/ca HTTP/1.1\r\nHost: le".getBytes(StandardCharsets.US_ASCII));
                    s.setSoTimeout(60_000);
                    while (attacking.get() && s.getInputStream().read() >= 0) {
                        // the leader sends nothing until it closes
                    }
                } catch (IOException e) {
                    // closed: over the share of its address, or its time for headers was up
                }
                slowLifetimes.add((System.nanoTime() - opened) / 1_000_000);
                return null;
            });
        }

        List<Long> health = new ArrayList<>();
        List<Long> reports = new ArrayList<>();
        NodeFacts facts = TestFacts.fourCoresTwoThreads(node)
                .memoryMiB(32000)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
        while (System.nanoTime() - start < 8_000_000_000L) {
            long t = System.nanoTime();
            admin().get("/q/health/live").then().statusCode(200);
            health.add((System.nanoTime() - t) / 1_000_000);
            t = System.nanoTime();
            agent.reportFacts(facts);
            reports.add((System.nanoTime() - t) / 1_000_000);
            Thread.sleep(100); // the pace of the legitimate callers during the attack
        }
        attacking.set(false);
        attackers.shutdown();
        assertTrue(attackers.awaitTermination(90, TimeUnit.SECONDS), "every attacker's connection ended");
        agent.reportFacts(facts);
        assertEquals(BIG_JOINS, refusedJoins.get(), "every 1 MB join with a wrong token was refused or cut off");
        System.out.printf(
                "UnauthenticatedLoadTest: %d 1 MB joins with a wrong token and %d slow-header connections from 50 addresses;"
                        + " during 8 s: health %d answers, median %d ms, max %d ms; agent reports %d, median %d ms, max %d ms;"
                        + " slow-header connections held median %d ms, max %d ms%n",
                BIG_JOINS,
                SLOW_HEADERS,
                health.size(),
                median(health),
                Collections.max(health),
                reports.size(),
                median(reports),
                Collections.max(reports),
                median(slowLifetimes),
                Collections.max(slowLifetimes));
        assertTrue(
                Collections.max(slowLifetimes) < 60_000, "no slow-header connection was held until the client gave up");
    }

    static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    static SSLSocket connect(SSLContext tls, int port, String from) throws IOException {
        SSLSocket s = (SSLSocket) tls.getSocketFactory()
                .createSocket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(from), 0);
        s.setSoTimeout(60_000);
        s.startHandshake();
        return s;
    }
}
