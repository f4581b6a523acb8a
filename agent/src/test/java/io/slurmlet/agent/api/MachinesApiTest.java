package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.node.LeaderJoin;
import io.slurmlet.agent.node.LeaderLink;
import io.slurmlet.agent.node.LeaderTls;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.NodeFacts;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * Removing a machine is evicting it ({@code ctl slurm machines remove}, {@code allow}): its name is
 * refused until an admin allows it, the join token it joined with is revoked, and a report of its on
 * the way when it is removed does not put it back.
 */
@QuarkusTest
class MachinesApiTest {

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Inject
    AgentCredentials credentials;

    @Inject
    NodeReports reports;

    URI base() {
        return URI.create("https://127.0.0.1:" + leader.agentPort());
    }

    X509Certificate ca() throws Exception {
        return LeaderJoin.fetchPinnedCa(base(), pki.caHash());
    }

    /** A new join token: its id and the token. */
    static String[] newToken(String description) {
        var made = admin().contentType("application/json")
                .body("{\"description\": \"%s\"}".formatted(description))
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
        return new String[] {made.getString("id"), made.getString("token")};
    }

    static NodeFacts facts(String node) {
        return TestFacts.fourCoresTwoThreads(node)
                .memoryMiB(32000)
                .os("debian 12")
                .slurmVersion("24.11.5")
                .build();
    }

    /** A name of this run's own: the test leader's state outlives a run. */
    static String name(String prefix) {
        return prefix + Long.toString(System.nanoTime(), 36);
    }

    @Test
    void aRemovedMachineIsRefusedWhenItJoinsAgainUntilAnAdminAllowsIt() throws Exception {
        String node = name("ev");
        String[] token = newToken("MachinesApiTest");
        X509Certificate ca = ca();
        LeaderLink machine = new LeaderLink(
                base(), ca, LeaderJoin.join(base(), ca, token[1], node).credential());
        machine.reportFacts(facts(node));

        admin().delete("/v1/machines/" + node)
                .then()
                .statusCode(200)
                .body("credential_revoked", equalTo(true))
                .body("facts_forgotten", equalTo(true))
                .body(
                        "notes[0]",
                        equalTo(
                                ("removed %s: its credential revoked, its facts forgotten; its name is refused until an "
                                                + "admin allows it again (ctl slurm machines allow %s)")
                                        .formatted(node, node)));
        assertEquals(
                401,
                assertThrows(LeaderLink.Refused.class, () -> machine.reportFacts(facts(node)))
                        .status());
        // What its agent does on that 401: it forgets its credential and joins again, with a token still on the
        // machine.
        String[] another = newToken("MachinesApiTest, another");
        for (String asked : List.of(node, node.toUpperCase())) {
            LeaderLink.Refused refused =
                    assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, another[1], asked));
            assertEquals(403, refused.status(), refused.getMessage());
            assertTrue(
                    refused.getMessage().contains(node + " was removed from this cluster at "), refused.getMessage());
            assertFalse(
                    refused.getMessage().contains("admin token from"),
                    "who removed it is the leader's log's: " + refused.getMessage());
            assertTrue(
                    refused.getMessage()
                            .contains("an admin allows it on the leader first: ctl slurm machines allow " + node),
                    refused.getMessage());
        }
        admin().get("/v1/nodes").then().statusCode(200).body("containsKey('" + node + "')", equalTo(false));
        admin().get("/v1/machines")
                .then()
                .statusCode(200)
                .body("machines", not(hasItem(node)))
                .body("removed.find { it.node == '%s' }.join_token".formatted(node), equalTo(token[0]))
                .body("removed.find { it.node == '%s' }.by".formatted(node), containsString("the admin token from"));
        admin().delete("/v1/machines/" + node)
                .then()
                .statusCode(404)
                .body(
                        "error",
                        equalTo(node
                                + " was removed already (at %s): its name stays refused until an admin allows it: "
                                        .formatted(
                                                credentials.removed().get(node).removed())
                                + "ctl slurm machines allow " + node));

        admin().post("/v1/machines/" + node.toUpperCase() + "/allow")
                .then()
                .statusCode(200)
                .body("node", equalTo(node))
                .body("allowed", equalTo(true))
                .body(
                        "notes",
                        contains(
                                "allowed %s: it may join again with a join token ('ctl slurm join-token' prints the line that joins it)"
                                        .formatted(node)));
        admin().get("/v1/machines").then().statusCode(200).body("removed.node", not(hasItem(node)));
        LeaderLink again = new LeaderLink(
                base(), ca, LeaderJoin.join(base(), ca, another[1], node).credential());
        again.reportFacts(facts(node));
        admin().get("/v1/machines").then().statusCode(200).body("machines", hasItem(node));
        admin().post("/v1/machines/" + node + "/allow")
                .then()
                .statusCode(404)
                .body(
                        "error",
                        equalTo(
                                "\"%s\" was not removed, so nothing is allowed: ctl slurm machines list shows the removed names; "
                                                .formatted(node)
                                        + "a machine that has joined is removed with ctl slurm machines remove"))
                .body("problems[0].key", equalTo("node"))
                .body("problems[0].value", equalTo(node));
        admin().post("/v1/machines/ALL/allow").then().statusCode(400).body("problems[0].key", equalTo("node"));
        TestAgents.forget(node);
    }

    @Test
    void theJoinTokenItJoinedWithIsRevokedAndTheOtherMachinesThatJoinedWithItKeepTheirCredentials() throws Exception {
        String first = name("jt");
        String second = first + "b";
        String[] token = newToken("MachinesApiTest, rack");
        X509Certificate ca = ca();
        LeaderJoin.join(base(), ca, token[1], first);
        LeaderLink other = new LeaderLink(
                base(), ca, LeaderJoin.join(base(), ca, token[1], second).credential());

        String answer = admin().delete("/v1/machines/" + first)
                .then()
                .statusCode(200)
                .body("join_token", equalTo(token[0]))
                .body("join_token_revoked", equalTo(true))
                .body(
                        "notes[1]",
                        equalTo(("join token %s, which it joined with, is revoked: no machine joins with it any more, "
                                        + "and the machines that joined with it keep their credentials")
                                .formatted(token[0])))
                .extract()
                .asString();
        assertFalse(answer.contains(token[1].substring(token[0].length() + 1)), "the token's secret is in no answer");
        admin().get("/v1/join-tokens").then().statusCode(200).body("tokens.id", not(hasItem(token[0])));
        LeaderLink.Refused revoked =
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, token[1], first + "c"));
        assertEquals(401, revoked.status(), "no machine joins with it any more");
        other.reportFacts(facts(second)); // the other machine keeps its credential
        admin().get("/v1/machines").then().statusCode(200).body("machines", hasItem(second));
        TestAgents.forget(first);
        TestAgents.forget(second);
    }

    /** A machine's facts kept (an earlier leader's) but no credential: removing it again names the token its first removal revoked. */
    @Test
    void aCredentialMadeBeforeTheTokenWasKeptNamesNoneAndTheMungeKeyIsSaidToBeTheClusters() throws Exception {
        String node = name("old");
        // As a credential of an earlier slurmlet, or the leader's own machine's: no join token kept with it.
        String credential = credentials.issue(node);
        new LeaderLink(base(), ca(), credential).reportFacts(facts(node));
        admin().delete("/v1/machines/" + node)
                .then()
                .statusCode(200)
                .body("credential_revoked", equalTo(true))
                .body("join_token", equalTo(""))
                .body("join_token_revoked", equalTo(false))
                .body(
                        "notes[1]",
                        equalTo("join token revoked: none (its credential does not say which it joined with)"))
                .body(
                        "notes[2]",
                        equalTo(
                                "the munge key it held is still the cluster's: if the machine is not trusted, roll a new one to every machine with ctl slurm munge-key rotate"));
        IOException refused = assertThrows(
                AgentCredentials.NameRemoved.class,
                () -> credentials.issue(node),
                "the leader's own machine joins in-process, and is refused too");
        assertTrue(refused.getMessage().contains("ctl slurm machines allow " + node), refused.getMessage());
        TestAgents.forget(node);
    }

    /**
     * The race that put a removed machine back: a facts report whose credential was checked before the
     * removal and whose write came after it. The request's headers are checked (the channel answers
     * "100 Continue" only then), the machine is removed, and then the body is sent: the facts are not
     * written, so slurm.conf and the exports' clients never see the machine again.
     */
    @Test
    void aFactsReportOnTheWayWhenItsMachineIsRemovedIsRefusedAndDoesNotPutItBack() throws Exception {
        String node = name("fly");
        String[] token = newToken("MachinesApiTest, in flight");
        X509Certificate ca = ca();
        String credential = LeaderJoin.join(base(), ca, token[1], node).credential();
        new LeaderLink(base(), ca, credential).reportFacts(facts(node));

        byte[] body = SettingsJson.STRICT.writeValueAsBytes(facts(node).withSlurmctldCandidate("25.05.1"));
        String[] answer = removedBetweenCheckAndWrite(ca, "/v1/agent/facts", credential, body, node);
        assertEquals("401", answer[0], answer[1]);
        assertTrue(
                answer[1].contains(
                        "credential was revoked while its facts report was on the way (ctl slurm machines remove "
                                + node + "): nothing of it was kept"),
                answer[1]);
        admin().get("/v1/nodes").then().statusCode(200).body("containsKey('" + node + "')", equalTo(false));
        admin().get("/v1/machines").then().statusCode(200).body("machines", not(hasItem(node)));
        TestAgents.forget(node);
    }

    /** The same for a status report: what the machine's steps did is not kept for a machine removed meanwhile. */
    @Test
    void aStatusReportOnTheWayWhenItsMachineIsRemovedIsRefusedAndNotKept() throws Exception {
        String node = name("sfly");
        String[] token = newToken("MachinesApiTest, status in flight");
        X509Certificate ca = ca();
        String credential = LeaderJoin.join(base(), ca, token[1], node).credential();

        byte[] body = SettingsJson.STRICT.writeValueAsBytes(new NodeReport(
                node, 1, List.of(new StepStatus("munge", "ok", "munged runs", "2026-11-30T04:00:00Z", "", ""))));
        String[] answer = removedBetweenCheckAndWrite(ca, "/v1/agent/status", credential, body, node);
        assertEquals("401", answer[0], answer[1]);
        assertTrue(answer[1].contains("while its status report was on the way"), answer[1]);
        assertTrue(reports.get(node).isEmpty(), "no report kept for " + node);
        TestAgents.forget(node);
    }

    /**
     * PUT {@code path} with {@code credential} over a connection of its own, its body held back until
     * the channel has checked the credential and asks for it (100 Continue); meanwhile {@code node} is
     * removed. Returns the answer's status and body.
     */
    String[] removedBetweenCheckAndWrite(X509Certificate ca, String path, String credential, byte[] body, String node)
            throws Exception {
        try (SSLSocket socket =
                (SSLSocket) LeaderTls.trusting(ca).getSocketFactory().createSocket("127.0.0.1", leader.agentPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(
                    ("PUT %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: %d\r\nExpect: 100-continue\r\n\r\n")
                            .formatted(path, credential, body.length)
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String interim = head(in);
            assertTrue(
                    interim.startsWith("HTTP/1.1 100"),
                    "the credential was checked and the body is asked for: " + interim);

            admin().delete("/v1/machines/" + node).then().statusCode(200).body("credential_revoked", equalTo(true));

            out.write(body);
            out.flush();
            String head = head(in);
            int length = Integer.parseInt(head.lines()
                    .filter(l -> l.toLowerCase().startsWith("content-length:"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(head))
                    .substring("content-length:".length())
                    .strip());
            return new String[] {head.substring(9, 12), new String(in.readNBytes(length), StandardCharsets.UTF_8)};
        }
    }

    /** An answer's head, up to the empty line. */
    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection closed after " + head);
            }
            head.write(b);
            byte[] read = head.toByteArray();
            int n = read.length;
            if (n >= 4 && read[n - 4] == '\r' && read[n - 3] == '\n' && read[n - 2] == '\r' && read[n - 1] == '\n') {
                return head.toString(StandardCharsets.US_ASCII);
            }
        }
    }
}
