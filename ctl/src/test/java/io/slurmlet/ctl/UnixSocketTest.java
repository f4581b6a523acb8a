package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsDocument;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's unix socket: a real domain socket, through Vert.x's native (epoll) transport. */
class UnixSocketTest {

    @TempDir
    Path dir;

    Path socket;
    HttpServer server;
    final List<Map<String, String>> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void listen() throws Exception {
        assertTrue(
                CtlRunner.VERTX.isNativeTransportEnabled(),
                () -> "Vert.x has no native transport: " + CtlRunner.VERTX.unavailableNativeTransportCause());
        socket = dir.resolve("leader.sock");
        String body = StubLeader.json(new SettingsDocument(7, SETTINGS));
        server = CtlRunner.VERTX.createHttpServer().requestHandler(req -> {
            requests.add(Map.of(
                    "method",
                    req.method().name(),
                    "path",
                    req.path(),
                    "authorization",
                    String.valueOf(req.getHeader("Authorization")),
                    "host",
                    String.valueOf(req.getHeader("Host"))));
            req.response()
                    .putHeader("Content-Type", "application/json")
                    .putHeader("ETag", "\"7\"")
                    .end(body);
        });
        server.listen(SocketAddress.domainSocketAddress(socket.toString()))
                .toCompletionStage()
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        server.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void showWorksOverTheSocket() {
        var r = new CtlRunner().runExactly("slurm", "show", "--leader", "unix:" + socket);
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("revision 7\n"), r::toString);
        assertEquals("GET", requests.get(0).get("method"));
        assertEquals("/v1/slurm/settings", requests.get(0).get("path"));
    }

    @Test
    void theTokenIsNeverSentOverTheSocket() throws Exception {
        Path token = CtlRunner.tokenFile(dir);
        var r = new CtlRunner()
                .runExactly("slurm", "show", "--leader", "unix:" + socket, "--token-file", token.toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals("null", requests.get(0).get("authorization"));
        Files.delete(token);
        r = new CtlRunner().runExactly("slurm", "show", "--leader", "unix:" + socket, "--token-file", token.toString());
        assertEquals(0, r.exit(), "the token file is not even read for the socket: " + r);
    }

    @Test
    void theSocketIsTheDefaultAddressFromTheEnvironmentToo() {
        CtlRunner ctl = new CtlRunner();
        ctl.env.put(LeaderResolver.LEADER_ENV, "unix://" + socket);
        var r = ctl.runExactly("slurm", "show", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("{\"revision\":7,"), r::toString);
        assertEquals("localhost", requests.get(0).get("host"));
    }
}
