package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.MERGE_PATCH;
import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static io.slurmlet.agent.api.ApiTestSupport.revision;
import static io.slurmlet.agent.api.ApiTestSupport.storedFile;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
class SettingsApiTest {

    private static final String CLUSTER = """
            {"enabled": true, "controller": "n0", "nodes": ["n1", "n2", "n3"], "lent": ["n1"]}""";

    private long base;

    @BeforeEach
    void startFromKnownSettings() {
        base = reset(CLUSTER);
    }

    @Test
    void getReturnsSettingsRevisionAndETag() {
        admin().get("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .header("ETag", "\"" + base + "\"")
                .body("revision", equalTo((int) base))
                .body("settings.enabled", equalTo(true))
                .body("settings.cluster_name", equalTo("slurmlet"))
                .body("settings.partition", equalTo("gpu"))
                .body("settings.nodes", contains("n1", "n2", "n3"))
                .body("settings.shared.path", equalTo(""))
                .body("settings.experimental.enable_async_reply", equalTo(false));
    }

    @Test
    void putWithCurrentRevisionReplacesEverySetting() {
        admin().contentType("application/json")
                .header("If-Match", "\"" + base + "\"")
                .body("""
                        {"enabled": true, "controller": "c1", "nodes": ["g1"], "partition": "batch"}""")
                .put("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .header("ETag", "\"" + (base + 1) + "\"")
                .body("revision", equalTo((int) base + 1))
                .body("settings.controller", equalTo("c1"))
                .body("settings.lent", empty())
                .body("settings.partition", equalTo("batch"));
        assertEquals(base + 1, revision());
    }

    @Test
    void putNamingAnOldRevisionIsRefusedWithTheCurrentOne() {
        String before = storedFile();
        admin().contentType("application/json")
                .header("If-Match", "\"" + (base - 1) + "\"")
                .body("{\"enabled\": false}")
                .put("/v1/slurm/settings")
                .then()
                .statusCode(409)
                .body("revision", equalTo((int) base))
                .body("error", containsString("they are at revision " + base + " now: read them again"));
        assertEquals(before, storedFile());
    }

    @Test
    void putWithoutIfMatchIsRefused() {
        admin().contentType("application/json")
                .body("{}")
                .put("/v1/slurm/settings")
                .then()
                .statusCode(428)
                .body("error", containsString("If-Match: \"" + base + "\""));
        assertEquals(base, revision());
    }

    @Test
    void ifMatchThatIsNoRevisionIsABadRequest() {
        admin().contentType("application/json")
                .header("If-Match", "yesterday")
                .body("{}")
                .put("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body(
                        "error",
                        equalTo(
                                "If-Match \"yesterday\" is not a revision: send the ETag of GET /v1/slurm/settings, as If-Match: \"7\""));
    }

    @Test
    void refusedChangeListsEveryProblemAndStoresNothing() {
        String before = storedFile();
        admin().contentType(MERGE_PATCH)
                .body("""
                        {"controller": "ALL", "lent": ["n9"], "shared": {"path": "/etc"}, "users": "ldap"}""")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("error", equalTo("the settings were not changed: 4 problems"))
                .body("problems.key", contains("controller", "lent[0]", "users", "shared.path"))
                .body("problems[1].value", equalTo("n9"))
                .body(
                        "problems[1].message",
                        equalTo("lent[0] \"n9\" is not in nodes: only a node that runs slurmd "
                                + "can be lent; add it to nodes first, or set all_nodes=true"));
        assertEquals(base, revision());
        assertEquals(before, storedFile());
    }

    @Test
    void settingsThatCouldNotBeSentBackAreRefused() {
        // The test leader reads bodies of up to 4096 bytes (application.properties, %test).
        String big = "x".repeat(2_500);
        admin().contentType(MERGE_PATCH)
                .body("{\"slurm_conf\": {\"MailProg\": \"/%s\"}}".formatted(big))
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
        String before = storedFile();
        long revision = revision();
        admin().contentType(MERGE_PATCH)
                .body("{\"slurm_conf\": {\"Epilog\": \"/%s\"}}".formatted(big))
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("settings"))
                .body(
                        "problems[0].message",
                        containsString("over the 4096 this API reads, so they could not be sent back with a PUT"));
        assertEquals(revision, revision());
        assertEquals(before, storedFile());
        admin().contentType(MERGE_PATCH)
                .body("{\"slurm_conf\": {\"MailProg\": null}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
    }

    @Test
    void aValueUtf8CannotHoldIsRefusedNotStoredAsAQuestionMark() {
        String before = storedFile();
        admin().contentType(MERGE_PATCH)
                .body("{\"slurm_conf\": {\"MailProg\": \"/usr/bin/m\\ud800\"}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("slurm_conf.MailProg"))
                .body("problems[0].message", containsString("half of a UTF-16 surrogate pair"));
        assertEquals(before, storedFile());
    }

    @Test
    void aBrokenChunkedBodyChangesNothingAndTheLeaderAnswersOn() throws Exception {
        String before = storedFile();
        long revision = revision();
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", io.restassured.RestAssured.port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream()
                    .write(("PATCH /v1/slurm/settings HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer "
                                    + ApiTestSupport.token()
                                    + "\r\nContent-Type: application/merge-patch+json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                    + "zz\r\n{\"cluster_name\": \"broken\"}\r\n0\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            // Vert.x ends a connection whose chunks cannot be decoded; it is answered first, and says why.
            String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            org.junit.jupiter.api.Assertions.assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            org.junit.jupiter.api.Assertions.assertTrue(
                    answer.contains("the request's body could not be read"), answer);
            org.junit.jupiter.api.Assertions.assertTrue(answer.contains("nothing was changed"), answer);
        }
        assertEquals(revision, revision());
        assertEquals(before, storedFile());
    }

    @Test
    void patchMergesAndNullClearsToTheDefault() {
        admin().contentType(MERGE_PATCH)
                .body("{\"cluster_name\": \"lab\", \"shared\": {\"path\": \"/shared\"}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.cluster_name", equalTo("lab"))
                .body("settings.nodes", contains("n1", "n2", "n3"))
                .body("settings.shared.path", equalTo("/shared"));
        admin().contentType(MERGE_PATCH)
                .body("{\"cluster_name\": null, \"shared\": {\"path\": null}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base + 2))
                .body("settings.cluster_name", equalTo("slurmlet"))
                .body("settings.shared.path", equalTo(""));
    }

    @Test
    void patchThatChangesNothingKeepsTheRevision() {
        admin().contentType(MERGE_PATCH)
                .body("{\"enabled\": true}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base));
    }

    @Test
    void patchWithStaleIfMatchIsRefused() {
        admin().contentType(MERGE_PATCH)
                .header("If-Match", "\"" + (base + 5) + "\"")
                .body("{\"enabled\": false}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(409)
                .body("revision", equalTo((int) base));
        admin().contentType(MERGE_PATCH)
                .header("If-Match", "W/\"" + base + "\"")
                .body("{\"enabled\": false}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base + 1));
    }

    @Test
    void patchAsPlainJsonIsTakenToo() {
        admin().contentType("application/json")
                .body("{\"cluster_name\": \"plain\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.cluster_name", equalTo("plain"));
    }

    @Test
    void containersAreRefusedWhereTheLeaderHasNoPinnedFilesToInstallAndNothingIsStored() {
        String before = storedFile();
        for (String dryRun : java.util.List.of("?dry_run=true", "")) {
            admin().contentType("application/json")
                    .body("{\"containers\": true}")
                    .patch("/v1/slurm/settings" + dryRun)
                    .then()
                    .statusCode(400)
                    .body("problems[0].key", equalTo("containers"))
                    .body("problems[0].value", equalTo("true"))
                    .body(
                            "problems[0].message",
                            containsString(
                                    "containers=true cannot take effect: no mirror is configured to fetch "
                                            + "enroot and pyxis from, and the leader holds no enroot, enroot+caps, pyxis: set slurmlet.leader.containers.mirror"))
                    .body(
                            "problems[0].message",
                            containsString("or hand the files to the leader (ctl slurm containers import FILE...)"))
                    .body(
                            "problems[0].message",
                            containsString("this release's table has no sha256 for enroot, enroot+caps, pyxis"));
        }
        assertEquals(before, storedFile());
    }

    @Test
    void unknownKeysAreNamed() {
        badPatch(
                "{\"clustername\": \"x\"}",
                "unknown key \"clustername\": the keys there are all_nodes, auth, cluster_name, "
                        + "containers, controller, enabled, experimental, lent, nodes, partition, shared, slurm_conf, users");
        badPatch(
                "{\"shared\": {\"server\": \"n1\", \"export\": \"x\"}}",
                "unknown key \"shared.export\": the keys there are nfs, path, server");
    }

    @Test
    void wrongTypesNameTheKey() {
        badPatch("{\"nodes\": \"n1,n2\"}", "nodes has the wrong type: it takes a list of strings, as [\"n1\", \"n2\"]");
        badPatch("{\"enabled\": \"yes\"}", "enabled has the wrong type: it takes true or false");
        badPatch("{\"lent\": [\"n1\", 7]}", "lent[1] has the wrong type: it takes a string");
        badPatch(
                "{\"experimental\": {\"enable_async_reply\": 1}}",
                "experimental.enable_async_reply has the wrong type: it takes true or false");
    }

    @Test
    void malformedBodiesAreBadRequests() {
        badPatch(
                "{\"enabled\": true",
                "the body is not valid JSON (line 1, column 17): "
                        + "Unexpected end-of-input: expected close marker for Object (opened at line 1, column 1)");
        badPatch("", "the body is empty: send the settings as a JSON object");
        badPatch("[\"n1\"]", "the body is JSON array, not an object: send the settings as {\"key\": value, …}");
        badPatch(
                "{\"enabled\": true, \"enabled\": false}",
                "the body is not valid JSON (line 1, column 28): Duplicate field 'enabled'");
        badPatch(
                "{} {}",
                "the body is not valid JSON (line 1, column 4): more follows the first value: send one JSON object");
    }

    @Test
    void bodyThatIsNotUtf8IsABadRequest() {
        byte[] body = "{\"controller\": \"n\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        admin().contentType(MERGE_PATCH)
                .body(body)
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("error", equalTo("the body is not UTF-8 text: send the JSON encoded as UTF-8"));
        assertEquals(base, revision());
    }

    @Test
    void bodyOverTheLimitIsABadRequest() {
        String big = "{\"nodes\": [" + "\"n1\",".repeat(1000) + "\"n2\"]}";
        admin().contentType(MERGE_PATCH)
                .body(big)
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body(
                        "error",
                        equalTo("the body is %d bytes, over the 4096 this API reads: send only the settings"
                                .formatted(big.length())));
        assertEquals(base, revision());
    }

    @Test
    void otherMediaTypesAreRefusedAsJson() {
        admin().contentType("text/plain")
                .body("{}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(415)
                .body("error", startsWith("send the body as application/json"));
    }

    @Test
    void lendAddsANodeOnceAndUnlendRemovesIt() {
        admin().post("/v1/slurm/lent/n2")
                .then()
                .statusCode(200)
                .header("ETag", "\"" + (base + 1) + "\"")
                .body("settings.lent", contains("n1", "n2"));
        admin().post("/v1/slurm/lent/n2")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base + 1))
                .body("settings.lent", contains("n1", "n2"));
        admin().delete("/v1/slurm/lent/n1")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base + 2))
                .body("settings.lent", contains("n2"));
    }

    @Test
    void lendingANodeThatRunsNoSlurmdIsRefused() {
        admin().post("/v1/slurm/lent/n7")
                .then()
                .statusCode(400)
                .body("problems", hasSize(1))
                .body("problems[0].key", equalTo("lent[1]"))
                .body("problems[0].message", startsWith("lent[1] \"n7\" is not in nodes"));
        assertEquals(base, revision());
    }

    @Test
    void lendWithStaleIfMatchIsRefused() {
        admin().header("If-Match", "\"" + (base - 1) + "\"")
                .post("/v1/slurm/lent/n3")
                .then()
                .statusCode(409)
                .body("revision", equalTo((int) base));
    }

    @Test
    void unknownPathsAnswerJson() {
        admin().get("/v1/slurm/nothing").then().statusCode(404).body("error", startsWith("no such resource"));
    }

    private static void badPatch(String body, String error) {
        long before = revision();
        admin().contentType(MERGE_PATCH)
                .body(body)
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("error", equalTo(error))
                .body("problems", empty());
        assertEquals(before, revision());
    }

    @Test
    void aSlurmConfKeyTheControllersSlurmDoesNotKnowIsRefusedWhenWrittenWithTheNearestKeyAndNothingIsStored() {
        // The test leader's state outlives a run: a name of this run's own.
        String controller = "kk" + Long.toString(System.nanoTime(), 36);
        NodesApiTest.report(controller, "24.11.5");
        long revision = reset("""
                {"enabled": true, "controller": "%s", "nodes": [], "lent": []}""".formatted(controller));
        for (String dryRun : java.util.List.of("true", "false")) {
            admin().contentType(MERGE_PATCH)
                    .body("{\"slurm_conf\": {\"MaxJobCnt\": \"50000\"}}")
                    .patch("/v1/slurm/settings?dry_run=" + dryRun)
                    .then()
                    .statusCode(400)
                    .body("problems[0].key", equalTo("slurm_conf.MaxJobCnt"))
                    .body("problems[0].value", equalTo("50000"))
                    .body(
                            "problems[0].message",
                            startsWith("MaxJobCnt is not a slurm.conf key of Slurm 24.11, which the controller "
                                    + controller
                                    + " runs: slurmctld, every slurmd and every Slurm command would stop at it"))
                    .body("problems[0].message", containsString("did you mean MaxJobCount?"));
        }
        assertEquals(revision, revision());
        admin().contentType(MERGE_PATCH)
                .body("{\"slurm_conf\": {\"MaxJobCount\": \"50000\"}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.slurm_conf.MaxJobCount", equalTo("50000"));
        TestAgents.forget(controller);
    }

    @Test
    void aPluginTheControllerDoesNotHaveIsRefusedWhenWrittenAndNothingIsStored() {
        String controller = "pl" + Long.toString(System.nanoTime(), 36);
        String facts = NodesApiTest.facts("24.11.5");
        facts = facts.substring(0, facts.lastIndexOf('}'))
                + ", \"slurm_plugins\": [\"auth_munge\", \"switch_nvidia_imex\"]}";
        assertEquals(200, NodesApiTest.facts(controller, facts).status());
        long revision = reset("""
                {"enabled": true, "controller": "%s", "nodes": [], "lent": []}""".formatted(controller));
        for (String dryRun : java.util.List.of("true", "false")) {
            admin().contentType(MERGE_PATCH)
                    .body("{\"slurm_conf\": {\"SwitchType\": \"switch/nvidia_imx\"}}")
                    .patch("/v1/slurm/settings?dry_run=" + dryRun)
                    .then()
                    .statusCode(400)
                    .body("problems[0].key", equalTo("slurm_conf.SwitchType"))
                    .body("problems[0].value", equalTo("switch/nvidia_imx"))
                    .body(
                            "problems[0].message",
                            startsWith("SwitchType names the plugin switch/nvidia_imx, which the controller "
                                    + controller + " (Slurm 24.11.5) does not have"))
                    .body("problems[0].message", containsString("Did you mean switch/nvidia_imex?"));
        }
        assertEquals(revision, revision());
        admin().contentType(MERGE_PATCH)
                .body("{\"slurm_conf\": {\"SwitchType\": \"switch/nvidia_imex\"}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.slurm_conf.SwitchType", equalTo("switch/nvidia_imex"));
        TestAgents.forget(controller);
    }
}
