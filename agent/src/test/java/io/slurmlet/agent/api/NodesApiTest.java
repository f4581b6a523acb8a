package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Facts the agents report, and what the leader's status makes of them with the planner. */
@QuarkusTest
class NodesApiTest {

    static String facts(String slurm) {
        return """
                {"cpus": 64, "boards": 1, "sockets": 2, "cores_per_socket": 16, "threads_per_core": 2,
                 "memory_mib": 515000, "gpus": [{"model": "NVIDIA H200", "count": 8}], "os": "debian 13",
                 "slurm_version": "%s"}""".formatted(slurm);
    }

    static void report(String node, String slurm) {
        assertEquals(200, facts(node, facts(slurm)).status());
    }

    static TestAgents.Answer facts(String node, String body) {
        try {
            return TestAgents.reportFacts(node, body);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aReportIsStoredOnceAndAgainOnlyWhenItChanges() {
        // The test leader's state outlives a run: a name of this run's own.
        String node = "rep" + Long.toString(System.nanoTime(), 36);
        TestAgents.Answer first = facts(node, facts("24.11.5"));
        assertEquals(200, first.status(), first.body());
        assertEquals(true, first.json().getBoolean("changed"));
        assertEquals(node, first.json().getString("node"));
        assertEquals(false, facts(node, facts("24.11.5")).json().getBoolean("changed"));
        assertEquals(true, facts(node, facts("24.11.6")).json().getBoolean("changed"));
        admin().get("/v1/nodes")
                .then()
                .statusCode(200)
                .body(node + ".cpus", equalTo(64))
                .body(node + ".slurm_version", equalTo("24.11.6"))
                .body(node + ".gpus[0].model", equalTo("NVIDIA H200"));
    }

    @Test
    void theAdminApiTakesNoFacts() {
        // Facts come from the machines' own agents, over their channel, with their credential.
        admin().contentType("application/json")
                .body(facts("24.11.5"))
                .put("/v1/nodes/rep2/facts")
                .then()
                .statusCode(404);
    }

    @Test
    void badReportsAreRefusedNamingWhatIsWrong() {
        TestAgents.Answer all = facts("ALL", facts("24.11.5"));
        assertEquals(400, all.status(), all.body());
        assertTrue(all.body().contains("is a word slurm.conf reserves"), all.body());
        TestAgents.Answer zero = facts("rep2", "{\"cpus\": 0, \"memory_mib\": 0}");
        assertEquals(400, zero.status(), zero.body());
        assertEquals("the facts were not stored: 5 problems", zero.json().getString("error"));
        assertEquals(
                List.of("cpus", "sockets", "cores_per_socket", "threads_per_core", "memory_mib"),
                zero.json().getList("problems.key"));
        TestAgents.Answer unknown = facts("rep2", "{\"cpu\": 4}");
        assertEquals(400, unknown.status(), unknown.body());
        assertTrue(unknown.json().getString("error").startsWith("unknown key \"cpu\""), unknown.body());
        TestAgents.Answer other = facts(
                "rep2",
                "{\"name\": \"other\", \"cpus\": 1, \"sockets\": 1, "
                        + "\"cores_per_socket\": 1, \"threads_per_core\": 1, \"memory_mib\": 1}");
        assertEquals(400, other.status(), other.body());
        assertEquals("name", other.json().getString("problems[0].key"));
    }

    @Test
    void factsThatWouldPutALineIntoSlurmConfAreRefusedAndNotStored() {
        String node = "evil" + Long.toString(System.nanoTime(), 36);
        TestAgents.Answer line = facts(
                node,
                facts("24.11.5")
                        .replace("\"cpus\"", "\"address\": \"10.0.0.2\\nPrologSlurmctld=/tmp/evil\\n#\", \"cpus\""));
        assertEquals(400, line.status(), line.body());
        assertEquals("address", line.json().getString("problems[0].key"));
        assertEquals("10.0.0.2\nPrologSlurmctld=/tmp/evil\n#", line.json().getString("problems[0].value"));
        assertTrue(
                line.json()
                        .getString("problems[0].message")
                        .startsWith(
                                "address \"10.0.0.2\\u000aPrologSlurmctld=/tmp/evil\\u000a#\" is not an IP address or a host name"),
                line.body());
        assertEquals(
                "gpus[0].count",
                facts(node, facts("24.11.5").replace("\"count\": 8", "\"count\": -5"))
                        .json()
                        .getString("problems[0].key"));
        assertEquals(
                "gpus[0].model",
                facts(node, facts("24.11.5").replace("\"model\": \"NVIDIA H200\", ", ""))
                        .json()
                        .getString("problems[0].key"));
        admin().get("/v1/nodes").then().statusCode(200).body("containsKey('" + node + "')", equalTo(false));
        report(node, "24.11.5");
        // Host names ignore case: a machine of the same name but for case cannot join beside it.
        TestAgents.Answer upper = facts(node.toUpperCase(), facts("24.11.5"));
        assertEquals(409, upper.status(), upper.body());
    }

    @Test
    void statusSaysWhenTheControllerRunsASlurmNewerThanAnyKnown() {
        reset("""
                {"enabled": true, "controller": "st-ctl", "nodes": ["st-n1"], "lent": ["st-n1"]}""");
        report("st-ctl", "27.05.1");
        report("st-n1", "27.05.1");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("nodes.slurm", contains("27.05.1", "27.05.1"))
                .body(
                        "notes",
                        hasItem(
                                "the controller runs Slurm 27.05.1, newer than 26.05, the newest release "
                                        + "slurmlet is proven against: its files are written as for 26.11; a newer slurmlet may know more"));
    }

    @Test
    void statusReportsAControllerTooOldAndANodeNewerThanIt() {
        reset("""
                {"enabled": true, "controller": "old-ctl", "nodes": ["old-n1"], "lent": []}""");
        report("old-ctl", "21.08.8");
        report("old-n1", "21.08.8");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body(
                        "problems.message",
                        hasItem("the controller old-ctl runs Slurm 21.08.8, older than 22.05, the oldest "
                                + "release slurmlet writes for: upgrade Slurm on it to 22.05 or later"));
        reset("""
                {"enabled": true, "controller": "sk-ctl", "nodes": ["sk-n1"], "lent": []}""");
        report("sk-ctl", "22.05.8");
        report("sk-n1", "24.11.5");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("problems.key", hasItem("nodes"))
                .body(
                        "problems.message",
                        hasItem(startsWith("sk-n1 has Slurm 24.11.5, newer than the controller sk-ctl's 22.05.8")));
    }
}
