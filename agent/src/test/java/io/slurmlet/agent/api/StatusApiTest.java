package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Test;

@QuarkusTest
class StatusApiTest {

    @Test
    void statusListsTheControllerFirstThenEachNodeWithRolesAndLending() {
        long revision = reset("""
                {"enabled": true, "cluster_name": "lab", "controller": "n1", "nodes": ["n1", "n2", "n3"],
                 "lent": ["n2"], "partition": "batch"}""");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) revision))
                .body("enabled", equalTo(true))
                .body("cluster_name", equalTo("lab"))
                .body("controller", equalTo("n1"))
                .body("partition", equalTo("batch"))
                .body("nodes.name", contains("n1", "n2", "n3"))
                .body("nodes[0].roles", contains("slurmctld", "slurmd"))
                .body("nodes[1].roles", contains("slurmd"))
                .body("nodes.lent", contains(false, true, false))
                .body("problems", empty());
    }

    @Test
    void aDisabledClusterLendsNothing() {
        reset("""
                {"enabled": false, "controller": "c", "nodes": ["n1"], "lent": ["n1"]}""");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("nodes.name", contains("c", "n1"))
                .body("nodes[0].roles", contains("slurmctld"))
                .body("nodes.lent", contains(false, false));
    }

    @Test
    void openApiDescribesTheSettingsApi() {
        RestAssured.get("/q/openapi")
                .then()
                .statusCode(200)
                .body(containsString("/v1/slurm/settings"))
                .body(containsString("/v1/slurm/lent/{node}"));
    }
}
