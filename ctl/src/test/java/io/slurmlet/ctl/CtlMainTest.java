package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.settings.Problem;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ctl as Quarkus runs it: its own Vert.x (with the native transport application.properties asks
 * for), its CDI-made commands, quiet logs. {@code CtlMainIT} runs the same against the packaged jar.
 */
@QuarkusMainTest
class CtlMainTest {

    static Path dir;
    static StubLeader leader;
    static Vertx vertx;
    static HttpServer socketLeader;
    static Path socket;
    static Path token;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("ctl-main");
        token = CtlRunner.tokenFile(dir);
        leader = new StubLeader()
                .on("GET", "/v1/slurm/settings", StubLeader.document(7, SETTINGS))
                .on(
                        "PATCH",
                        "/v1/slurm/settings",
                        StubLeader.refused(
                                "the settings were not changed: 1 problem",
                                new Problem(
                                        "shared.path",
                                        "/etc",
                                        "shared.path \"/etc\" is the system's own directory: take one of its own, as /shared")));
        vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
        socket = dir.resolve("leader.sock");
        String body = StubLeader.json(new SettingsDocument(7, SETTINGS));
        socketLeader = vertx.createHttpServer()
                .requestHandler(req -> req.response()
                        .putHeader("Content-Type", "application/json")
                        .end(body));
        socketLeader
                .listen(SocketAddress.domainSocketAddress(socket.toString()))
                .toCompletionStage()
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        leader.close();
        socketLeader.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        Files.deleteIfExists(socket);
        Files.deleteIfExists(token);
        Files.deleteIfExists(dir);
    }

    /**
     * stderr without the INFO lines about starting and stopping that the integration-test launcher
     * turns on for its own use (ctl itself logs nothing below WARN).
     */
    static String err(LaunchResult r) {
        return r.getErrorOutput()
                .lines()
                .filter(l -> !l.matches("\\d{4}-\\d\\d-\\d\\d [0-9:,]+ INFO  \\[io\\.quarkus\\] .*"))
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    private static void noToken(LaunchResult r) {
        assertFalse(r.getOutput().contains(CtlRunner.TOKEN));
        assertFalse(r.getErrorOutput().contains(CtlRunner.TOKEN));
    }

    @Test
    void showOverTcp(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("--leader", leader.url(), "--token-file", token.toString(), "slurm", "show");
        assertEquals(0, r.exitCode(), () -> err(r));
        assertTrue(r.getOutput().startsWith("revision 7\nKEY "), r::getOutput);
        assertTrue(r.getOutput().contains("\nshared.path                      /shared"), r::getOutput);
        assertEquals("", err(r), "no banner, no log lines");
        noToken(r);
    }

    @Test
    void showOverTheUnixSocket(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("slurm", "show", "-o", "json", "--leader", "unix:" + socket);
        assertEquals(0, r.exitCode(), () -> err(r));
        assertEquals(StubLeader.json(new SettingsDocument(7, SETTINGS)), r.getOutput());
    }

    @Test
    void aRefusedChangeIsExit1WithEachProblemAndNoTrace(QuarkusMainLauncher launcher) throws IOException {
        LaunchResult r = launcher.launch(
                "slurm", "set", "shared.path=/etc", "--leader", leader.url(), "--token-file", token.toString());
        assertEquals(1, r.exitCode(), () -> err(r));
        assertEquals(
                "the settings were not changed: 1 problem\n"
                        + "  shared.path \"/etc\" is the system's own directory: take one of its own, as /shared",
                err(r));
        noToken(r);
    }

    @Test
    void anUnknownKeyIsExit2(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("slurm", "set", "enabeld=true");
        assertEquals(2, r.exitCode(), () -> err(r));
        assertTrue(err(r).startsWith("unknown key 'enabeld': did you mean enabled?"), () -> err(r));
    }

    @Test
    void anUnreachableSocketNamesIt(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("slurm", "status", "--leader", "unix:" + dir.resolve("nobody.sock"));
        assertEquals(1, r.exitCode(), () -> err(r));
        assertEquals(
                "cannot reach the leader at unix:" + dir.resolve("nobody.sock")
                        + ": no such file (is slurmlet-agent running on this machine? use --leader)",
                err(r));
    }

    @Test
    void help(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("slurm", "lend", "--help");
        assertEquals(0, r.exitCode());
        assertTrue(r.getOutput().startsWith("Usage: ctl slurm lend"), r::getOutput);
    }
}
