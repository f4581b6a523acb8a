package io.slurmlet.agent.store;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A leader-eligible agent on a real etcd whose lease another agent holds: it stands by (its admin API
 * answers 503 naming the leader, its readiness says standby), and when that leader's lease ends it
 * leads: puts its CA, munge key and admin token into etcd sealed (none of them readable there), and
 * serves the settings.
 */
@QuarkusTest
@WithTestResource(StandbyLeaderTest.OtherLeader.class)
class StandbyLeaderTest {

    static final Path STATE = Path.of("target/standby-state");

    /** A real etcd, and another agent's lease on the leader's key, renewed until {@link #die()}. */
    public static class OtherLeader implements QuarkusTestResourceLifecycleManager {
        static EtcdProcess etcd;
        static Client client;
        static long lease;
        static ScheduledExecutorService renewing;

        @Override
        public Map<String, String> start() {
            try {
                Path dir = Files.createTempDirectory("standby-etcd");
                etcd = EtcdProcess.start(dir, false);
                client = Client.builder().endpoints(etcd.endpoint).build();
                lease = client.getLeaseClient()
                        .grant(2)
                        .get(10, TimeUnit.SECONDS)
                        .getID();
                client.getKVClient()
                        .put(
                                ByteSequence.from("/standby/" + EtcdElection.KEY, StandardCharsets.UTF_8),
                                ByteSequence.from(
                                        "{\"name\":\"other\",\"agents\":\"https://other:7818\"}",
                                        StandardCharsets.UTF_8),
                                PutOption.builder().withLeaseId(lease).build())
                        .get(10, TimeUnit.SECONDS);
                renewing = Executors.newSingleThreadScheduledExecutor();
                renewing.scheduleAtFixedRate(
                        () -> client.getLeaseClient().keepAliveOnce(lease), 0, 300, TimeUnit.MILLISECONDS);
                Path key = dir.resolve("secrets.key");
                Files.writeString(key, HexFormat.of().formatHex(new byte[32]).replace('0', 'a') + "\n");
                Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
                deleteState();
                return Map.of(
                        "slurmlet.state-dir",
                        STATE.toString(),
                        "quarkus.http.domain-socket",
                        "target/standby-leader.sock",
                        "slurmlet.leader.store.kind",
                        "etcd",
                        "slurmlet.leader.store.etcd.endpoints",
                        etcd.endpoint,
                        "slurmlet.leader.store.etcd.insecure-plaintext",
                        "true",
                        "slurmlet.leader.store.etcd.prefix",
                        "/standby/",
                        "slurmlet.leader.store.etcd.lease",
                        "2s",
                        "slurmlet.leader.store.etcd.secrets-key-file",
                        key.toString());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        static void die() throws Exception {
            renewing.shutdownNow();
            client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
        }

        private static void deleteState() throws java.io.IOException {
            if (Files.exists(STATE)) {
                try (var walk = Files.walk(STATE)) {
                    for (Path p :
                            walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }

        @Override
        public void stop() {
            renewing.shutdownNow();
            client.close();
            try {
                etcd.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void standsByNamingTheLeaderThenLeadsWhenItsLeaseEnds() throws Exception {
        RestAssured.given()
                .header("Authorization", "Bearer whatever")
                .get("/v1/slurm/settings")
                .then()
                .statusCode(503)
                .header("Retry-After", "1")
                .body("error", containsString("this agent stands by: the leader is other (https://other:7818)"));
        RestAssured.get("/q/health/ready")
                .then()
                .statusCode(200)
                .body("checks.find { it.name == 'settings-store' }.data.role", equalTo("standby"))
                .body("checks.find { it.name == 'settings-store' }.data.leader", equalTo("other (https://other:7818)"));
        assertFalse(Files.exists(STATE.resolve("admin.token")), "a standby makes no admin token of its own");

        OtherLeader.die();
        await().atMost(Duration.ofSeconds(15)).until(() -> Files.exists(STATE.resolve("admin.token")));
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertEquals(
                        200,
                        RestAssured.given()
                                .header("Authorization", "Bearer " + token())
                                .get("/v1/slurm/settings")
                                .statusCode(),
                        "it leads and serves the settings"));
        RestAssured.get("/q/health/ready")
                .then()
                .statusCode(200)
                .body("checks.find { it.name == 'settings-store' }.data.revision", equalTo(0));

        // Its secrets are in etcd, sealed: neither the munge key nor the admin token can be read there.
        String sealed = OtherLeader.etcd.etcdctl("get", "--print-value-only", "/standby/_secrets");
        assertTrue(sealed.contains("\"sealed\""), sealed);
        byte[] munge = Files.readAllBytes(STATE.resolve("munge.key"));
        assertFalse(
                sealed.contains(Base64.getEncoder().encodeToString(munge)),
                "the munge key is not in etcd in the clear");
        assertFalse(sealed.contains(token()), "the admin token is not in etcd in the clear");
        assertFalse(sealed.contains("PRIVATE KEY"), "the CA's key is not in etcd in the clear");
        String leader = OtherLeader.etcd.etcdctl("get", "--print-value-only", "/standby/" + EtcdElection.KEY);
        assertFalse(leader.contains("other"), "its own record holds the leader's key: " + leader);

        // Leading on etcd, its agents' channel serves the admin forward a standby's node role asks a join token
        // through,
        // to a standby's own credential, a certificate the cluster's CA made for it, only.
        java.net.URI agents =
                java.net.URI.create("https://127.0.0.1:" + channel.get().agentPort());
        java.security.cert.X509Certificate ca = io.slurmlet.agent.node.LeaderJoin.fetchPinnedCa(
                agents, pki.get().caHash());
        Path pkiDir = STATE.resolve(io.slurmlet.agent.trust.Pki.DIR);
        var standby = io.slurmlet.agent.trust.StandbyCredential.make(
                Files.readAllBytes(pkiDir.resolve("ca.crt")),
                Files.readAllBytes(pkiDir.resolve("ca.key")),
                "n9",
                Duration.ofMinutes(10));
        String joinToken = io.slurmlet.agent.node.LeaderJoin.joinTokenFromLeader(agents, ca, standby, "n9");
        RestAssured.given()
                .header("Authorization", "Bearer " + token())
                .get("/v1/join-tokens")
                .then()
                .statusCode(200)
                .body("tokens.description", org.hamcrest.Matchers.hasItem("the node role of leader-eligible n9"));
        io.slurmlet.agent.node.LeaderJoin.join(agents, ca, joinToken, "n9");

        // The admin token, which ctl users elsewhere hold, opens nothing there.
        var client = java.net.http.HttpClient.newBuilder()
                .sslContext(io.slurmlet.agent.node.LeaderTls.trusting(ca))
                .build();
        var byToken = client.send(
                java.net.http.HttpRequest.newBuilder(agents.resolve("/v1/admin-forward/v1/join-tokens"))
                        .header("Authorization", "Bearer " + token())
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        org.junit.jupiter.api.Assertions.assertEquals(401, byToken.statusCode(), byToken.body());
        assertTrue(byToken.body().contains("only a standby hands admin requests on here"), byToken.body());

        // Nor does the leader's own certificate (the CA's, but for serving), or a standby's of another CA.
        var leaderKey = java.security.KeyFactory.getInstance("EC")
                .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(java.util.Base64.getMimeDecoder()
                        .decode(Files.readString(pkiDir.resolve("leader.key"))
                                .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", ""))));
        var notAStandby = new io.slurmlet.agent.trust.StandbyCredential(
                "leader", leaderKey, io.slurmlet.agent.trust.Pki.readCertificate(pkiDir.resolve("leader.crt")));
        org.junit.jupiter.api.Assertions.assertThrows(
                java.io.IOException.class,
                () -> io.slurmlet.agent.node.LeaderJoin.joinTokenFromLeader(agents, ca, notAStandby, "n9"),
                "a certificate for serving: refused in the handshake (its purpose), or answered 401");
        Path otherDir = Files.createTempDirectory("other-ca");
        io.slurmlet.agent.trust.StandbyCredential strangers;
        try {
            io.slurmlet.agent.trust.Pki.open(otherDir, java.util.List.of("localhost"));
            strangers = io.slurmlet.agent.trust.StandbyCredential.make(
                    Files.readAllBytes(otherDir.resolve("ca.crt")),
                    Files.readAllBytes(otherDir.resolve("ca.key")),
                    "n9",
                    Duration.ofMinutes(10));
        } finally {
            io.slurmlet.agent.TempTrees.delete(otherDir); // another CA's key: never left in /tmp
        }
        org.junit.jupiter.api.Assertions.assertThrows(
                java.io.IOException.class,
                () -> io.slurmlet.agent.node.LeaderJoin.joinTokenFromLeader(agents, ca, strangers, "n9"),
                "a certificate of another CA: refused in the handshake, or answered 401");
    }

    /** Asked for once it leads: a standby has no CA of its own to serve. */
    @jakarta.inject.Inject
    jakarta.enterprise.inject.Instance<io.slurmlet.agent.trust.LeaderChannel> channel;

    @jakarta.inject.Inject
    jakarta.enterprise.inject.Instance<io.slurmlet.agent.trust.Pki> pki;

    private static String token() throws java.io.IOException {
        return Files.readString(STATE.resolve("admin.token")).strip();
    }
}
