package io.slurmlet.agent.api;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.node.LeaderLink;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.facts.NodeFacts;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.security.cert.X509Certificate;
import java.util.List;

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

/**
 * Removing a machine is evicting it ({@code ctl slurm machines remove}, {@code allow}): its name is
 * refused until an admin allows it, and the join token it joined with is revoked.
 */
@QuarkusTest
class MachinesApiTest {

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Inject
    AgentCredentials credentials;

    URI base() {
        return URI.create("https://127.0.0.1:" + leader.agentPort());
    }

    X509Certificate ca() throws Exception {
        return LeaderLink.fetchPinnedCa(base(), pki.caHash());
    }

    /** A new join token: its id and the token. */
    static String[] newToken(String description) {
        var made = admin().contentType("application/json").body("{\"description\": \"%s\"}".formatted(description))
                .post("/v1/join-tokens").then().statusCode(201).extract().jsonPath();
        return new String[] {made.getString("id"), made.getString("token")};
    }

    static NodeFacts facts(String node) {
        return new NodeFacts(node, "", 8, 1, 1, 4, 2, 32000, List.of(), "debian 12", "24.11.5");
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
        LeaderLink machine = new LeaderLink(base(), ca, LeaderLink.join(base(), ca, token[1], node).credential());
        machine.reportFacts(facts(node));

        admin().delete("/v1/machines/" + node).then().statusCode(200)
                .body("credential_revoked", equalTo(true)).body("facts_forgotten", equalTo(true))
                .body("notes[0]", equalTo(("removed %s: its credential revoked, its facts forgotten; its name is refused until an "
                        + "admin allows it again (ctl slurm machines allow %s)").formatted(node, node)));
        assertEquals(401, assertThrows(LeaderLink.Refused.class, () -> machine.reportFacts(facts(node))).status());
        // What its agent does on that 401: it forgets its credential and joins again, with a token still on the machine.
        String[] another = newToken("MachinesApiTest, another");
        for (String asked : List.of(node, node.toUpperCase())) {
            LeaderLink.Refused refused = assertThrows(LeaderLink.Refused.class, () -> LeaderLink.join(base(), ca, another[1], asked));
            assertEquals(403, refused.status(), refused.getMessage());
            assertTrue(refused.getMessage().contains(node + " was removed from this cluster at "), refused.getMessage());
            assertFalse(refused.getMessage().contains("admin token from"), "who removed it is the leader's log's: " + refused.getMessage());
            assertTrue(refused.getMessage().contains("an admin allows it on the leader first: ctl slurm machines allow " + node),
                    refused.getMessage());
        }
        admin().get("/v1/nodes").then().statusCode(200).body("containsKey('" + node + "')", equalTo(false));
        admin().get("/v1/machines").then().statusCode(200)
                .body("machines", not(hasItem(node)))
                .body("removed.find { it.node == '%s' }.join_token".formatted(node), equalTo(token[0]))
                .body("removed.find { it.node == '%s' }.by".formatted(node), containsString("the admin token from"));
        admin().delete("/v1/machines/" + node).then().statusCode(404)
                .body("error", equalTo(node + " was removed already (at %s): its name stays refused until an admin allows it: "
                        .formatted(credentials.removed().get(node).removed()) + "ctl slurm machines allow " + node));

        admin().post("/v1/machines/" + node.toUpperCase() + "/allow").then().statusCode(200)
                .body("node", equalTo(node)).body("allowed", equalTo(true))
                .body("notes", contains("allowed %s: it may join again with a join token ('ctl slurm join-token' prints the line that joins it)"
                        .formatted(node)));
        admin().get("/v1/machines").then().statusCode(200).body("removed.node", not(hasItem(node)));
        LeaderLink again = new LeaderLink(base(), ca, LeaderLink.join(base(), ca, another[1], node).credential());
        again.reportFacts(facts(node));
        admin().get("/v1/machines").then().statusCode(200).body("machines", hasItem(node));
        admin().post("/v1/machines/" + node + "/allow").then().statusCode(404)
                .body("error", equalTo("\"%s\" was not removed, so nothing is allowed: ctl slurm machines list shows the removed names; "
                        .formatted(node) + "a machine that has joined is removed with ctl slurm machines remove"))
                .body("problems[0].key", equalTo("node")).body("problems[0].value", equalTo(node));
        admin().post("/v1/machines/ALL/allow").then().statusCode(400).body("problems[0].key", equalTo("node"));
        TestAgents.forget(node);
    }

    @Test
    void theJoinTokenItJoinedWithIsRevokedAndTheOtherMachinesThatJoinedWithItKeepTheirCredentials() throws Exception {
        String first = name("jt");
        String second = first + "b";
        String[] token = newToken("MachinesApiTest, rack");
        X509Certificate ca = ca();
        LeaderLink.join(base(), ca, token[1], first);
        LeaderLink other = new LeaderLink(base(), ca, LeaderLink.join(base(), ca, token[1], second).credential());

        String answer = admin().delete("/v1/machines/" + first).then().statusCode(200)
                .body("join_token", equalTo(token[0])).body("join_token_revoked", equalTo(true))
                .body("notes[1]", equalTo(("join token %s, which it joined with, is revoked: no machine joins with it any more, "
                        + "and the machines that joined with it keep their credentials").formatted(token[0])))
                .extract().asString();
        assertFalse(answer.contains(token[1].substring(token[0].length() + 1)), "the token's secret is in no answer");
        admin().get("/v1/join-tokens").then().statusCode(200).body("tokens.id", not(hasItem(token[0])));
        LeaderLink.Refused revoked = assertThrows(LeaderLink.Refused.class, () -> LeaderLink.join(base(), ca, token[1], first + "c"));
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
        admin().delete("/v1/machines/" + node).then().statusCode(200)
                .body("credential_revoked", equalTo(true)).body("join_token", equalTo("")).body("join_token_revoked", equalTo(false))
                .body("notes[1]", equalTo("join token revoked: none (its credential does not say which it joined with)"))
                .body("notes[2]", equalTo("the munge key it held is still the cluster's: rotate it if the machine is not trusted"));
        IOException refused = assertThrows(AgentCredentials.NameRemoved.class, () -> credentials.issue(node),
                "the leader's own machine joins in-process, and is refused too");
        assertTrue(refused.getMessage().contains("ctl slurm machines allow " + node), refused.getMessage());
        TestAgents.forget(node);
    }
}
