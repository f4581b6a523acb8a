package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * An admin's session: the packaged agent started as a real process on a fresh state directory,
 * and the packaged ctl run against it, over the leader's unix socket and over TCP with the token.
 * Each step asserts exit code, stdout and stderr. The steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CtlIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path tmp;
    private static AgentProcess agent;
    private static Ctl local;

    @BeforeAll
    static void startLeader() throws Exception {
        tmp = Files.createTempDirectory("slurmlet-ctl-it-");
        agent = new AgentProcess(tmp.resolve("state")).start();
        // This machine's own /etc/slurmlet/ctl.yaml must not steer the test: an empty one of its own.
        Files.writeString(tmp.resolve("ctl.yaml"), "# no settings: flags and environment only\n");
        local = new Ctl(Map.of("SLURMLET_LEADER", "unix:" + agent.socket, "SLURMLET_CTL_CONFIG", config()));
    }

    @AfterAll
    static void stopLeader() throws Exception {
        if (agent != null) {
            agent.close();
        }
        Proc.deleteTree(tmp);
    }

    @Test
    @Order(1)
    void showOnAFreshLeaderPrintsTheDefaults() throws Exception {
        Proc.Result r = local.run("slurm", "show");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("revision 0\n"), r.toString());
        assertTrue(r.out().contains("\ncluster_name                     slurmlet\n"), r.toString());
        assertTrue(r.out().contains("\npartition                        gpu\n"), r.toString());
        assertEquals("", r.err());
    }

    @Test
    @Order(2)
    void setStoresAndSaysWhatChanged() throws Exception {
        Proc.Result r = local.run("slurm", "set", "enabled=true", "controller=n0", "nodes=n1,n2,n3");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("""
                revision 1 (was 0)
                enabled     false    ->  true
                controller  (empty)  ->  n0
                nodes       (empty)  ->  n1,n2,n3
                """, r.out());
        assertEquals("", r.err());
    }

    @Test
    @Order(3)
    void lendAndUnlend() throws Exception {
        Proc.Result lend = local.run("slurm", "lend", "n1", "n2");
        assertEquals(0, lend.exit(), lend.toString());
        assertEquals("lent n1, n2 (revision 2)\n", lend.out());
        Proc.Result unlend = local.run("slurm", "unlend", "n2");
        assertEquals(0, unlend.exit(), unlend.toString());
        assertEquals("unlent n2 (revision 3)\n", unlend.out());
    }

    @Test
    @Order(4)
    void statusShowsRolesAndLending() throws Exception {
        Proc.Result r = local.run("slurm", "status");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("""
                NODE  ROLES      LENT  SLURM  PLAN
                n0    slurmctld  no    -      -
                n1    slurmd     yes   -      -
                n2    slurmd     no    -      -
                n3    slurmd     no    -      -
                """), r.toString());
        // No agent has reported a step yet: the steps' columns come from the agents' reports.
    }

    @Test
    @Order(5)
    void aRefusedChangePrintsEveryProblemAndStoresNothing() throws Exception {
        Proc.Result r = local.run("slurm", "set", "controller=ALL", "lent=n9", "shared.path=/etc");
        assertEquals(1, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals("""
                the settings were not changed: 3 problems
                  controller "ALL" is a word slurm.conf reserves (ALL, DEFAULT): a node cannot be called that; use the machine's host name
                  lent[0] "n9" is not in nodes: only a node that runs slurmd can be lent; add it to nodes first, or set all_nodes=true
                  shared.path /etc is the system's own directory: take one of its own, as /shared
                """, r.err());
        assertFalse(r.err().contains("Exception"));
        assertEquals(3, revision());
    }

    @Test
    @Order(6)
    void badUsageExitsTwoWithAHint() throws Exception {
        Proc.Result unknown = local.run("slurm", "set", "bogus=1");
        assertEquals(2, unknown.exit(), unknown.toString());
        assertTrue(unknown.err().startsWith("unknown key 'bogus'\n"), unknown.toString());
        assertTrue(unknown.err().contains("See 'ctl slurm set --help'."), unknown.toString());
        Proc.Result containers = local.run("slurm", "containers", "maybe");
        assertEquals(2, containers.exit(), containers.toString());
        assertEquals(3, revision());
    }

    @Test
    @Order(7)
    void overTcpTheTokenIsNeededAndNeverPrinted() throws Exception {
        String token = agent.token();
        Ctl tcp = new Ctl(Map.of("SLURMLET_CTL_CONFIG", config()));
        Proc.Result ok = tcp.run(
                "--leader",
                agent.leaderUrl(),
                "--token-file",
                agent.tokenFile().toString(),
                "slurm",
                "show",
                "-o",
                "json");
        assertEquals(0, ok.exit(), ok.toString());
        JsonNode doc = JSON.readTree(ok.out());
        assertEquals(3, doc.get("revision").asLong());
        assertEquals("n0", doc.at("/settings/controller").asText());

        Path wrong = tmp.resolve("wrong.token");
        Files.writeString(wrong, "not-the-token-not-the-token-not-the-token\n");
        Proc.Result refused = tcp.run("--leader", agent.leaderUrl(), "--token-file", wrong.toString(), "slurm", "show");
        assertEquals(1, refused.exit(), refused.toString());
        assertTrue(refused.err().contains("the admin token is wrong"), refused.toString());
        for (Proc.Result r : new Proc.Result[] {ok, refused}) {
            assertFalse(r.out().contains(token) || r.err().contains(token), "the token was printed");
        }
        assertFalse(refused.err().contains("not-the-token"), "a presented token was echoed");
    }

    @Test
    @Order(8)
    void anUnreachableLeaderIsNamed() throws Exception {
        Path socket = tmp.resolve("nobody.sock");
        Proc.Result r = new Ctl(Map.of("SLURMLET_LEADER", "unix:" + socket, "SLURMLET_CTL_CONFIG", config()))
                .run("slurm", "show");
        assertEquals(1, r.exit(), r.toString());
        assertTrue(r.err().startsWith("cannot reach the leader at unix:" + socket), r.toString());
        assertFalse(r.err().contains("\tat "), "no stack trace without -e");
    }

    @Test
    @Order(9)
    void theAgentLoggedNoSecret() throws Exception {
        String token = agent.token();
        assertFalse(agent.logText().contains(token), "the admin token is in the agent's log");
    }

    private static String config() {
        return tmp.resolve("ctl.yaml").toString();
    }

    private static long revision() throws Exception {
        return JSON.readTree(agent.call("GET", "/v1/slurm/settings", null).body())
                .get("revision")
                .asLong();
    }
}
