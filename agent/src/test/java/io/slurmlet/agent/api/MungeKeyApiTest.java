package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.MungeKeys;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SlurmNodeState;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ctl slurm munge-key}: a rotation is stored before it is answered, and no answer holds the key. */
@QuarkusTest
class MungeKeyApiTest {

    @Inject
    AgentConfig config;

    @Inject
    MungeKeys keys;

    @Inject
    NodeReports reports;

    @Test
    void aRotationIsStoredAnsweredWithItsMomentAndNeverTheKey() throws Exception {
        long before = admin().get("/v1/slurm/munge-key")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getLong("rotation");
        Instant asked = Instant.now();

        var answer = admin().post("/v1/slurm/munge-key/rotate")
                .then()
                .statusCode(200)
                .body("rotation", equalTo((int) before + 1))
                .body("by", org.hamcrest.Matchers.startsWith("the admin token from "))
                .body("notes", hasItem("watch it: ctl slurm munge-key status"))
                .extract();

        Instant at = Instant.parse(answer.jsonPath().getString("switch_at"));
        assertTrue(
                !at.isBefore(asked.plus(MungeKeys.LEAD))
                        && at.isBefore(Instant.now().plus(MungeKeys.LEAD)),
                at::toString);
        byte[] stored = Files.readAllBytes(config.stateDir().resolve("munge.key"));
        assertArrayEquals(keys.current().bytes(), stored, "stored before the answer");
        assertEquals(before + 1, keys.current().rotation());
        String body = answer.asString();
        String base64 = Base64.getEncoder().encodeToString(stored);
        assertFalse(body.contains(base64.substring(0, 12)), "the key is in no answer");
        assertFalse(admin().get("/v1/slurm/munge-key").asString().contains(base64.substring(0, 12)));
        admin().get("/v1/slurm/munge-key")
                .then()
                .statusCode(200)
                .body("rotation", equalTo((int) before + 1))
                .body("switch_at", equalTo(at.toString()));
    }

    @Test
    void whileJobsRunARotationIsRefusedWithWhyUnlessAskedUnderJobs() {
        ApiTestSupport.reset("""
                {"enabled": true, "controller": "mk-ctl", "nodes": ["mk-n1"], "lent": ["mk-n1"]}""");
        reports.put(new NodeReport(
                "mk-ctl", 1, List.of(), List.of(new SlurmNodeState("mk-n1", "MIXED", "", List.of("17 of alice")))));
        try {
            long before = keys.current().rotation();
            admin().post("/v1/slurm/munge-key/rotate")
                    .then()
                    .statusCode(409)
                    .body(
                            "error",
                            equalTo(
                                    "1 job runs (17 of alice): a batch job that ends within a fraction of a second of the switch "
                                            + "can have its end refused by slurmctld, and Slurm then requeues it (24.11 and later; 22.05 sends it "
                                            + "again, the job ends up to 15 s late); rotate once squeue shows none, or say "
                                            + "so with --under-jobs (under_jobs=true) to take that risk; nothing was changed"));
            assertEquals(before, keys.current().rotation(), "nothing was changed");
            admin().post("/v1/slurm/munge-key/rotate?under_jobs=true")
                    .then()
                    .statusCode(200)
                    .body("rotation", equalTo((int) before + 1));
        } finally {
            reports.forget("mk-ctl");
        }
    }

    @Test
    void aRotationNeedsTheAdminToken() {
        long before = keys.current().rotation();
        RestAssured.given().post("/v1/slurm/munge-key/rotate").then().statusCode(401);
        assertEquals(before, keys.current().rotation());
    }
}
