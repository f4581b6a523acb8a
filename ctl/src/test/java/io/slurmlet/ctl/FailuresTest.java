package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.document;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.settings.Problem;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Refusals and failures: exit 1, a message that says what to do, a stack trace only with -e, never the token. */
class FailuresTest {

    static final Problem NOT_IN_NODES = new Problem(
            "lent[1]",
            "gpu9",
            "lent[1] \"gpu9\" is not in nodes: only a node that "
                    + "runs slurmd can be lent; add it to nodes first, or set all_nodes=true");
    static final Problem BAD_PATH = new Problem(
            "shared.path",
            "/etc",
            "shared.path \"/etc\" is the system's own directory: " + "take one of its own, as /shared");

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader().on("GET", "/v1/slurm/settings", document(7, SETTINGS));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void aRefusedChangePrintsEachProblemOnItsOwnLineWithoutAStackTrace() {
        leader.on(
                "PATCH",
                "/v1/slurm/settings",
                StubLeader.refused("the settings were not changed: 2 problems", NOT_IN_NODES, BAD_PATH));
        var r = ctl.run("slurm", "set", "lent=gpu1,gpu9", "shared.path=/etc");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                List.of(
                        "the settings were not changed: 2 problems",
                        "  " + NOT_IN_NODES.message(),
                        "  " + BAD_PATH.message()),
                r.errLines());
        assertEquals("", r.out());
    }

    @Test
    void withErrorsARefusalAlsoPrintsTheStackTrace() {
        leader.on(
                "PATCH",
                "/v1/slurm/settings",
                StubLeader.refused("the settings were not changed: 1 problem", BAD_PATH));
        var r = ctl.run("-e", "slurm", "set", "shared.path=/etc");
        assertEquals(1, r.exit(), r::toString);
        assertEquals("the settings were not changed: 1 problem", r.errLines().get(0));
        assertEquals("  " + BAD_PATH.message(), r.errLines().get(1));
        assertTrue(
                r.errLines().get(2).startsWith(CtlException.class.getName() + ": the settings were not changed"),
                r::toString);
        assertTrue(r.err().contains("\tat io.slurmlet.ctl."), r::toString);
    }

    @Test
    void withJsonARefusalAlsoPrintsTheLeadersAnswerOnStdout() {
        var refused = StubLeader.refused("the settings were not changed: 1 problem", BAD_PATH);
        leader.on("PATCH", "/v1/slurm/settings", refused);
        var r = ctl.run("slurm", "set", "shared.path=/etc", "-o", "json");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(refused.body() + "\n", r.out());
        assertTrue(r.err().startsWith("the settings were not changed: 1 problem\n"), r::toString);
    }

    @Test
    void malformedInputIsTheLeadersOneSentence() {
        leader.on(
                "PATCH",
                "/v1/slurm/settings",
                StubLeader.status(400, "{\"error\":\"the body is not valid JSON (line 1, column 2)\"}"));
        var r = ctl.run("slurm", "containers", "on");
        assertEquals(1, r.exit(), r::toString);
        assertEquals("the leader refused the request: the body is not valid JSON (line 1, column 2)\n", r.err());
    }

    @Test
    void aWrongTokenNamesTheFileNotTheToken() {
        leader.on("GET", "/v1/slurm/settings", StubLeader.status(401, "{\"error\":\"missing or wrong token\"}"));
        var r = ctl.run("slurm", "show");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                "the leader at %s refused the token in %s (from --token-file): missing or wrong token\n"
                        .formatted(leader.url(), dir.resolve("admin.token")),
                r.err());
        r = ctl.run("slurm", "show", "-e");
        assertTrue(r.err().contains("\tat "), "a trace, still without the token");
    }

    @Test
    void noTokenAtAllSaysWhereCtlLooked() {
        leader.on("GET", "/v1/slurm/settings", StubLeader.status(401, "{\"error\":\"missing or wrong token\"}"));
        var r = ctl.runExactly("slurm", "show", "--leader", leader.url());
        assertEquals(1, r.exit(), r::toString);
        assertNull(leader.requests.get(0).header("Authorization"));
        assertTrue(
                r.err().startsWith("the leader at " + leader.url() + " wants a token, and ctl found none"),
                r::toString);
        assertTrue(r.err().contains("--token-file PATH"), r::toString);
    }

    @Test
    void anUnreachableLeaderOverTcpNamesTheAddressAndTheCause() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CtlRunner down = CtlRunner.against("http://127.0.0.1:" + port, dir);
        var r = down.run("slurm", "show");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                "cannot reach the leader at http://127.0.0.1:%d: connection refused (is slurmlet-agent running there, "
                                .formatted(port)
                        + "and is it the leader? check --leader)\n",
                r.err());
        assertEquals("", r.out());
    }

    @Test
    void anUnreachableLeaderSocketNamesThePathAndWhatToCheck() {
        Path socket = dir.resolve("leader.sock");
        var r = new CtlRunner().runExactly("slurm", "status", "--leader", "unix:" + socket);
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                "cannot reach the leader at unix:" + socket
                        + ": no such file (is slurmlet-agent running on this machine? " + "use --leader)\n",
                r.err());
    }

    @Test
    void withoutTheNativeTransportTheSocketIsRefusedSayingWhatToUseInstead() {
        Vertx plain = Vertx.vertx(new VertxOptions().setPreferNativeTransport(false));
        try {
            CtlRunner ctl = new CtlRunner();
            ctl.vertx = plain;
            var r = ctl.runExactly("slurm", "show", "--leader", "unix:" + dir.resolve("leader.sock"));
            assertEquals(1, r.exit(), r::toString);
            assertTrue(
                    r.err()
                            .startsWith("cannot reach the leader at unix:" + dir.resolve("leader.sock")
                                    + ": this ctl cannot open unix sockets here ("),
                    r::toString);
            assertTrue(r.err().endsWith("; use --leader http://HOST:7817\n"), r::toString);
        } finally {
            plain.close();
        }
    }

    @Test
    void httpsSpeaksTlsAndSaysWhenTheOtherSideDoesNot() throws Exception {
        var plainHttp = CtlRunner.VERTX
                .createHttpServer()
                .requestHandler(req -> req.response().end("{}"));
        int port = plainHttp
                .listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS)
                .actualPort();
        try {
            var r = ctl.runExactly(
                    "slurm",
                    "show",
                    "--leader",
                    "https://127.0.0.1:" + port,
                    "--token-file",
                    CtlRunner.tokenFile(dir).toString());
            assertEquals(1, r.exit(), r::toString);
            assertEquals(
                    "cannot reach the leader at https://127.0.0.1:" + port + ": TLS failed: the other side does not "
                            + "speak TLS (does it take http:// rather than https://?) (check --leader)\n",
                    r.err());
        } finally {
            plainHttp.close();
        }
    }

    @Test
    void theAddressFromTheEnvironmentSaysSo() {
        CtlRunner fromEnv = new CtlRunner();
        fromEnv.env.put(LeaderResolver.LEADER_ENV, "unix:" + dir.resolve("leader.sock"));
        var r = fromEnv.runExactly("slurm", "show");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith("cannot reach the leader at unix:" + dir.resolve("leader.sock")
                                + " (from SLURMLET_LEADER): no such file"),
                r::toString);
    }

    @Test
    void aLeaderThatDoesNotAnswerInTimeIsGivenUpOn() {
        leader.on("GET", "/v1/slurm/settings", document(7, SETTINGS).delayed(3_000));
        ctl.timeout = Duration.ofMillis(300);
        var r = ctl.run("slurm", "show");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().startsWith("no answer from the leader at " + leader.url() + " within 300 ms"), r::toString);
    }

    @Test
    void aServerErrorSaysWhatTheLeaderSaid() {
        leader.on(
                "GET",
                "/v1/slurm/status",
                StubLeader.status(500, "{\"error\":\"the state directory is not writable\"}"));
        var r = ctl.run("slurm", "status");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                "the leader at " + leader.url()
                        + " answered GET /v1/slurm/status with HTTP 500: the state directory is not " + "writable\n",
                r.err());
    }

    @Test
    void anAnswerThatIsNotTheApisIsSaidSo() {
        leader.on("GET", "/v1/slurm/settings", StubLeader.ok("<html>hello</html>"));
        var r = ctl.run("slurm", "show");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith("the leader at " + leader.url()
                                + " answered GET /v1/slurm/settings with something ctl " + "cannot read"),
                r::toString);
        assertFalse(r.err().contains("\tat "), r::toString);
    }

    @Test
    void aMissingTokenFileIsAFailureNamingIt() {
        Path missing = dir.resolve("missing.token");
        var r = ctl.runExactly("slurm", "show", "--leader", leader.url(), "--token-file", missing.toString());
        assertEquals(1, r.exit(), r::toString);
        assertEquals("cannot read the token file " + missing + " (from --token-file): no such file\n", r.err());
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void aBadLeaderFlagIsBadUsage() {
        var r = ctl.runExactly("slurm", "show", "--leader", "head1:7817");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err().startsWith("Invalid value for option '--leader': 'head1:7817' is not an address ctl takes"),
                r::toString);
        assertTrue(r.err().contains("did you mean http://head1:7817?"), r::toString);
    }

    @Test
    void anUnknownOptionIsBadUsageWithASuggestion() {
        var r = ctl.run("slurm", "show", "--ouput", "json");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("Unknown options: '--ouput'"), r::toString);
        assertTrue(r.err().contains("--output"), r::toString);
        r = ctl.run("slurm", "shwo");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().contains("show"), r::toString);
    }
}
