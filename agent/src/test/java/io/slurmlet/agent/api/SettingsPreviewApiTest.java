package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.MERGE_PATCH;
import static io.slurmlet.agent.api.ApiTestSupport.STATE_DIR;
import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static io.slurmlet.agent.api.ApiTestSupport.revision;
import static io.slurmlet.agent.api.ApiTestSupport.storedFile;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code ?dry_run=true}: judged as the write is, nothing stored, answered with what each machine would do. */
@QuarkusTest
class SettingsPreviewApiTest {

    // The test leader's state outlives a run: machines of this run's own.
    private final String id = Long.toString(System.nanoTime(), 36);
    private final String ctl = "drc" + id;
    private final String n1 = "dra" + id;
    private final String n2 = "drb" + id;
    private long base;
    private String stored;

    private String cluster(boolean enabled, String partition) {
        return """
                {"enabled": %s, "controller": "%s", "nodes": ["%s", "%s"], "lent": ["%s"], "partition": "%s"}""".formatted(enabled, ctl, n1, n2, n1, partition);
    }

    @BeforeEach
    void aSmallClusterWhoseAgentsReported() {
        for (String node : List.of(ctl, n1, n2)) {
            NodesApiTest.report(node, "24.11.5");
        }
        base = reset(cluster(true, "gpu"));
        stored = storedFile();
    }

    /** Nothing was stored: the same revision, the same file, byte for byte. */
    private void nothingStored() {
        assertEquals(base, revision());
        assertEquals(stored, storedFile());
    }

    private JsonPath dryPatch(String patch) {
        return admin().contentType(MERGE_PATCH)
                .header("If-Match", "\"" + base + "\"")
                .body(patch)
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(200)
                .header("ETag", "\"" + base + "\"")
                .extract()
                .jsonPath();
    }

    private static Map<String, Object> node(JsonPath p, String name) {
        return p.getMap("nodes.find { it.node == '" + name + "' }");
    }

    @Test
    void aPartitionRenameShowsSlurmConfEverywhereAndAReconfigureWithoutARestart() {
        JsonPath p = dryPatch("{\"partition\": \"batch\"}");
        assertEquals(base, p.getLong("revision"));
        assertTrue(p.getBoolean("changed"));
        assertEquals("batch", p.getString("settings.partition"));
        assertEquals(List.of(ctl, n1, n2).stream().sorted().toList(), p.getList("nodes.node"));
        for (String node : List.of(ctl, n1, n2)) {
            assertEquals(
                    List.of("/etc/slurm/slurm.conf"), p.getList("nodes.find { it.node == '" + node + "' }.files.path"));
            assertEquals(List.of("changed"), p.getList("nodes.find { it.node == '" + node + "' }.files.change"));
            String diff = p.getString("nodes.find { it.node == '" + node + "' }.files[0].diff");
            assertTrue(diff.startsWith("--- a/etc/slurm/slurm.conf\n+++ b/etc/slurm/slurm.conf\n@@ "), diff);
            assertTrue(diff.contains("\n-PartitionName=gpu ") && diff.contains("\n+PartitionName=batch "), diff);
            assertEquals(List.of("reconfigure"), p.getList("nodes.find { it.node == '" + node + "' }.daemons.action"));
        }
        assertEquals(List.of("slurmctld"), p.getList("nodes.find { it.node == '" + ctl + "' }.daemons.unit"));
        assertEquals(List.of("slurmd"), p.getList("nodes.find { it.node == '" + n1 + "' }.daemons.unit"));
        nothingStored();
    }

    @Test
    void aKeyReadOnlyAtStartShowsARestart() {
        JsonPath p = dryPatch("{\"users\": \"slurmlet\"}");
        assertEquals(List.of("restart"), p.getList("nodes.find { it.node == '" + ctl + "' }.daemons.action"));
        assertEquals(
                List.of("slurm.conf changes PrologFlags, which slurmd reads only at start"),
                p.getList("nodes.find { it.node == '" + n2 + "' }.daemons.why"));
        nothingStored();
    }

    @Test
    void enablingShowsCreatedFilesAndStartsAndNeverTheKey() throws IOException {
        base = reset(cluster(false, "gpu"));
        stored = storedFile();
        String body = admin().contentType("application/json")
                .header("If-Match", "\"" + base + "\"")
                .body(cluster(true, "gpu"))
                .put("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base))
                .extract()
                .asString();
        JsonPath p = JsonPath.from(body);
        Map<String, Object> c = node(p, ctl);
        assertEquals(List.of(), c.get("roles_before"));
        assertEquals(List.of("slurmctld"), c.get("roles_after"));
        assertEquals(
                List.of("created"),
                p.getList("nodes.find { it.node == '" + ctl + "' }.files.change").stream()
                        .distinct()
                        .toList());
        assertTrue(
                p.getList("nodes.find { it.node == '" + n1 + "' }.files.path").contains("/etc/munge/munge.key"));
        assertEquals(List.of("start munge", "start slurmctld"), actions(p, ctl));
        assertEquals(List.of("start munge", "start slurmd"), actions(p, n2));
        assertFalse(body.contains("munge_key"), body);
        Path key = STATE_DIR.resolve("munge.key");
        if (Files.exists(key)) {
            String base64 = Base64.getEncoder().encodeToString(Files.readAllBytes(key));
            assertFalse(body.contains(base64), "the munge key is in the preview");
            assertFalse(body.contains(base64.substring(0, 40)), "part of the munge key is in the preview");
        }
        nothingStored();
    }

    private static List<String> actions(JsonPath p, String node) {
        List<String> actions = p.getList("nodes.find { it.node == '" + node + "' }.daemons.action");
        List<String> units = p.getList("nodes.find { it.node == '" + node + "' }.daemons.unit");
        return java.util.stream.IntStream.range(0, units.size())
                .mapToObj(i -> actions.get(i) + " " + units.get(i))
                .toList();
    }

    @Test
    void lendingAndUnlendingAreShownToo() {
        JsonPath lend = admin().post("/v1/slurm/lent/" + n2 + "?dry_run=true")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertEquals(List.of(n1, n2), lend.getList("settings.lent"));
        String diff = lend.getString("nodes.find { it.node == '" + n2 + "' }.files[0].diff");
        // n2's line loses its drain: it moves from the line of machines not lent to the line of the lent ones.
        assertTrue(
                diff.lines().anyMatch(l -> l.startsWith("-NodeName=") && l.contains(n2) && l.contains("State=DRAIN"))
                        && diff.lines()
                                .anyMatch(l ->
                                        l.startsWith("+NodeName=") && l.contains(n2) && l.contains("State=UNKNOWN")),
                diff);
        admin().delete("/v1/slurm/lent/" + n1 + "?dry_run=true")
                .then()
                .statusCode(200)
                .body("settings.lent", empty())
                .body("nodes.daemons.flatten().action", not(hasItem("restart")));
        nothingStored();
    }

    @Test
    void aChangeThatChangesNoMachineHasNoNodes() {
        JsonPath p = dryPatch("{\"enabled\": true}");
        assertFalse(p.getBoolean("changed"));
        assertEquals(List.of(), p.getList("nodes"));
        nothingStored();
    }

    @Test
    void theIfMatchRulesOfTheWriteHold() {
        admin().contentType(MERGE_PATCH)
                .header("If-Match", "\"" + (base - 1) + "\"")
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(409)
                .body("revision", equalTo((int) base))
                .body("error", containsString("read them again and redo the change"));
        admin().contentType("application/json")
                .header("If-Match", "\"" + (base + 3) + "\"")
                .body(cluster(true, "x"))
                .put("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(409);
        admin().contentType("application/json")
                .body(cluster(true, "x"))
                .put("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(428)
                .body("error", containsString("If-Match: \"" + base + "\""));
        admin().post("/v1/slurm/lent/" + n2 + "?dry_run=true").then().statusCode(200);
        admin().header("If-Match", "\"" + (base + 1) + "\"")
                .post("/v1/slurm/lent/" + n2 + "?dry_run=true")
                .then()
                .statusCode(409);
        nothingStored();
    }

    @Test
    void settingsWithProblemsAreRefusedAsAWriteIs() {
        admin().contentType(MERGE_PATCH)
                .body("{\"controller\": \"ALL\", \"users\": \"ldap\"}")
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(400)
                .body("error", equalTo("the settings were not changed: 2 problems"))
                .body("problems.key", contains("controller", "users"));
        admin().post("/v1/slurm/lent/nosuch" + id + "?dry_run=true")
                .then()
                .statusCode(400)
                .body("problems.key", contains("lent[1]"));
        admin().contentType(MERGE_PATCH)
                .body("{\"partiton\": \"batch\"}")
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(400)
                .body("error", startsWithUnknownKey("partiton"));
        nothingStored();
    }

    private static org.hamcrest.Matcher<String> startsWithUnknownKey(String key) {
        return org.hamcrest.Matchers.startsWith("unknown key \"" + key + "\"");
    }

    @Test
    void aDryRunValueOtherThanTrueOrFalseIsRefusedNotStored() {
        admin().contentType(MERGE_PATCH)
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings?dry_run=yes")
                .then()
                .statusCode(400)
                .body(
                        "error",
                        equalTo("dry_run \"yes\" is not true or false: send ?dry_run=true to see what the change "
                                + "would do, or leave it out to make the change"));
        admin().post("/v1/slurm/lent/" + n2 + "?dry_run=1").then().statusCode(400);
        nothingStored();
        admin().contentType(MERGE_PATCH)
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings?dry_run=false")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) base + 1))
                .body("settings.partition", equalTo("batch"));
    }
}
