package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.oneOf;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.KeyPhases;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.SlurmKeys;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SlurmNodeState;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ctl slurm auth-key}: a rotation is kept before it is answered, refused under munge and while
 * one is under way, not refused under jobs, and no answer holds a key.
 */
@QuarkusTest
class SlurmKeysApiTest {

    private static final String MUNGE = """
            {"enabled": true, "controller": "ak-ctl", "nodes": ["ak-n1"], "lent": ["ak-n1"]}""";
    private static final String SLURM = """
            {"enabled": true, "controller": "ak-ctl", "nodes": ["ak-n1"], "lent": ["ak-n1"], "auth": "slurm"}""";

    @Inject
    AgentConfig config;

    @Inject
    SlurmKeys keys;

    @Inject
    NodeReports reports;

    @BeforeEach
    @AfterEach
    void noRotationUnderWayAndMunge() throws IOException {
        // The test state outlives a run (target/test-state): a rotation left under way is ended here, as the
        // leader's loop would end it with no machine planned, without waiting for the token lifetime.
        for (int i = 0; i < 10 && keys.state().phase() != KeyPhases.Phase.STEADY; i++) {
            Instant far = Instant.now().plus(Duration.ofDays(1));
            var next = KeyPhases.next(keys.state(), Map.of(), Map.of(), far, Duration.ZERO);
            if (next.isPresent()) {
                try {
                    keys.advance(next.get());
                } catch (IllegalArgumentException movedMeanwhile) {
                    // the leader's loop moved it first: the next pass starts from there
                }
            }
        }
        ApiTestSupport.reset(MUNGE);
    }

    @Test
    void underMungeTheKeysAreSaidAndARotationIsRefusedWithWhatToDoInstead() {
        admin().get("/v1/slurm/auth-key")
                .then()
                .statusCode(200)
                .body("auth", equalTo("munge"))
                .body("phase", equalTo("STEADY"))
                .body("kids.size()", equalTo(1))
                .body("next_step", startsWith("nothing: "));
        long generation = keys.state().generation();

        admin().post("/v1/slurm/auth-key/rotate")
                .then()
                .statusCode(409)
                .body(
                        "error",
                        equalTo("Slurm runs auth=munge, which uses no keys of Slurm's own: ctl slurm munge-key rotate "
                                + "rolls a new munge key; nothing was changed"));
        assertEquals(generation, keys.state().generation(), "nothing was changed");
    }

    @Test
    void aRotationIsKeptBeforeItIsAnsweredGoesOnUnderJobsAndASecondIsRefusedUntilItEnds() throws IOException {
        ApiTestSupport.reset(SLURM);
        KeyPhases.State before = keys.state();
        // A job runs: the rotation is not refused for it, that is what its three phases are for.
        reports.put(new NodeReport(
                "ak-ctl", 1, List.of(), List.of(new SlurmNodeState("ak-n1", "MIXED", "", List.of("17 of alice")))));
        try {
            rotateAndRefuseASecond(before);
        } finally {
            reports.forget("ak-ctl");
        }
    }

    private void rotateAndRefuseASecond(KeyPhases.State before) throws IOException {
        var answer = admin().post("/v1/slurm/auth-key/rotate")
                .then()
                .statusCode(200)
                .body("auth", equalTo("slurm"))
                .body("phase", equalTo("ADDED"))
                .body("generation", equalTo((int) before.generation() + 1))
                .body("rotation", equalTo((int) before.rotation() + 1))
                .body("signing_kid", equalTo(before.keys().jwks().signing()))
                .body("kids[0]", equalTo(before.keys().jwks().signing()))
                .body("kids[1]", equalTo("slurmlet-" + before.nextKid()))
                .body("by", startsWith("the admin token from "))
                .body("notes", hasItem("watch it: ctl slurm auth-key status"))
                .extract();

        JsonNode file = new ObjectMapper()
                .readTree(config.stateDir().resolve(SlurmKeys.FILE).toFile());
        assertEquals(before.rotation() + 1, file.get("rotation").asLong(), "kept before the answer");
        assertEquals("slurmlet-" + before.nextKid(), newest(file));
        List<String> ks = keysIn(file);
        for (String body :
                List.of(answer.asString(), admin().get("/v1/slurm/auth-key").asString())) {
            for (String k : ks) {
                assertFalse(body.contains(k.substring(0, 12)), "no key in an answer");
            }
        }

        admin().get("/v1/slurm/auth-key")
                .then()
                .statusCode(200)
                .body("rotation", equalTo((int) before.rotation() + 1))
                // With no machine planned, the leader's loop may have switched already.
                .body("phase", oneOf("ADDED", "SWITCHED"));
        admin().post("/v1/slurm/auth-key/rotate")
                .then()
                .statusCode(409)
                .body(
                        "error",
                        startsWith("rotation %d of Slurm's keys is under way (phase ".formatted(before.rotation() + 1)))
                .body("error", org.hamcrest.Matchers.endsWith("(ctl slurm auth-key status); nothing was changed"));
    }

    @Test
    void aRotationNeedsTheAdminToken() {
        long before = keys.state().generation();
        RestAssured.given().post("/v1/slurm/auth-key/rotate").then().statusCode(401);
        RestAssured.given().get("/v1/slurm/auth-key").then().statusCode(401);
        assertEquals(before, keys.state().generation());
    }

    private static String newest(JsonNode file) throws IOException {
        JsonNode list = new ObjectMapper().readTree(file.get("jwks").asText()).get("keys");
        return list.get(list.size() - 1).get("kid").asText();
    }

    private static List<String> keysIn(JsonNode file) throws IOException {
        JsonNode list = new ObjectMapper().readTree(file.get("jwks").asText()).get("keys");
        return java.util.stream.StreamSupport.stream(list.spliterator(), false)
                .map(k -> k.get("k").asText())
                .toList();
    }
}
