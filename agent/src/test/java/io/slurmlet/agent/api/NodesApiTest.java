package io.slurmlet.agent.api;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

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
        admin().contentType("application/json").body(facts(slurm)).put("/v1/nodes/" + node + "/facts").then().statusCode(200);
    }

    @Test
    void aReportIsStoredOnceAndAgainOnlyWhenItChanges() {
        // The test leader's state outlives a run: a name of this run's own.
        String node = "rep" + Long.toString(System.nanoTime(), 36);
        admin().contentType("application/json").body(facts("24.11.5")).put("/v1/nodes/" + node + "/facts").then()
                .statusCode(200).body("changed", equalTo(true)).body("node", equalTo(node));
        admin().contentType("application/json").body(facts("24.11.5")).put("/v1/nodes/" + node + "/facts").then()
                .statusCode(200).body("changed", equalTo(false));
        admin().contentType("application/json").body(facts("24.11.6")).put("/v1/nodes/" + node + "/facts").then()
                .statusCode(200).body("changed", equalTo(true));
        admin().get("/v1/nodes").then().statusCode(200)
                .body(node + ".cpus", equalTo(64))
                .body(node + ".slurm_version", equalTo("24.11.6"))
                .body(node + ".gpus[0].model", equalTo("NVIDIA H200"));
    }

    @Test
    void badReportsAreRefusedNamingWhatIsWrong() {
        admin().contentType("application/json").body(facts("24.11.5")).put("/v1/nodes/ALL/facts").then()
                .statusCode(400).body("problems[0].message", startsWith("node \"ALL\" is a word slurm.conf reserves"));
        admin().contentType("application/json").body("{\"cpus\": 0, \"memory_mib\": 0}").put("/v1/nodes/rep2/facts").then()
                .statusCode(400).body("error", equalTo("the facts were not stored: 5 problems"))
                .body("problems.key", contains("cpus", "sockets", "cores_per_socket", "threads_per_core", "memory_mib"));
        admin().contentType("application/json").body("{\"cpu\": 4}").put("/v1/nodes/rep2/facts").then()
                .statusCode(400).body("error", startsWith("unknown key \"cpu\""));
        admin().contentType("application/json").body("{\"name\": \"other\", \"cpus\": 1, \"sockets\": 1, "
                        + "\"cores_per_socket\": 1, \"threads_per_core\": 1, \"memory_mib\": 1}")
                .put("/v1/nodes/rep2/facts").then()
                .statusCode(400).body("problems[0].key", equalTo("name"));
    }

    @Test
    void factsThatWouldPutALineIntoSlurmConfAreRefusedAndNotStored() {
        String node = "evil" + Long.toString(System.nanoTime(), 36);
        admin().contentType("application/json")
                .body(facts("24.11.5").replace("\"cpus\"", "\"address\": \"10.0.0.2\\nPrologSlurmctld=/tmp/evil\\n#\", \"cpus\""))
                .put("/v1/nodes/" + node + "/facts").then()
                .statusCode(400).body("problems[0].key", equalTo("address"))
                .body("problems[0].value", equalTo("10.0.0.2\nPrologSlurmctld=/tmp/evil\n#"))
                .body("problems[0].message", startsWith("address \"10.0.0.2\\u000aPrologSlurmctld=/tmp/evil\\u000a#\" is not an IP address or a host name"));
        admin().contentType("application/json").body(facts("24.11.5").replace("\"count\": 8", "\"count\": -5"))
                .put("/v1/nodes/" + node + "/facts").then()
                .statusCode(400).body("problems[0].key", equalTo("gpus[0].count"));
        admin().contentType("application/json").body(facts("24.11.5").replace("\"model\": \"NVIDIA H200\", ", ""))
                .put("/v1/nodes/" + node + "/facts").then()
                .statusCode(400).body("problems[0].key", equalTo("gpus[0].model"));
        admin().get("/v1/nodes").then().statusCode(200).body("containsKey('" + node + "')", equalTo(false));
        report(node, "24.11.5");
        admin().contentType("application/json").body(facts("24.11.5")).put("/v1/nodes/" + node.toUpperCase() + "/facts").then()
                .statusCode(400).body("problems[0].message", startsWith("node " + node.toUpperCase() + " is " + node + " but for case"));
    }

    @Test
    void statusSaysWhenTheControllerRunsASlurmNewerThanAnyKnown() {
        reset("""
                {"enabled": true, "controller": "st-ctl", "nodes": ["st-n1"], "lent": ["st-n1"]}""");
        report("st-ctl", "27.05.1");
        report("st-n1", "27.05.1");
        admin().get("/v1/slurm/status").then().statusCode(200)
                .body("nodes.slurm", contains("27.05.1", "27.05.1"))
                .body("notes", hasItem("the controller runs Slurm 27.05.1, newer than 26.05, the newest release "
                        + "slurmlet is proven against: its files are written as for 26.11; a newer slurmlet may know more"));
    }

    @Test
    void statusReportsAControllerTooOldAndANodeNewerThanIt() {
        reset("""
                {"enabled": true, "controller": "old-ctl", "nodes": ["old-n1"], "lent": []}""");
        report("old-ctl", "21.08.8");
        report("old-n1", "21.08.8");
        admin().get("/v1/slurm/status").then().statusCode(200)
                .body("problems.message", hasItem("the controller old-ctl runs Slurm 21.08.8, older than 22.05, the oldest "
                        + "release slurmlet writes for: upgrade Slurm on it to 22.05 or later"));
        reset("""
                {"enabled": true, "controller": "sk-ctl", "nodes": ["sk-n1"], "lent": []}""");
        report("sk-ctl", "22.05.8");
        report("sk-n1", "24.11.5");
        admin().get("/v1/slurm/status").then().statusCode(200)
                .body("problems.key", hasItem("nodes"))
                .body("problems.message", hasItem(startsWith("sk-n1 has Slurm 24.11.5, newer than the controller sk-ctl's 22.05.8")));
    }
}
