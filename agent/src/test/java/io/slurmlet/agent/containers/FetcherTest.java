package io.slurmlet.agent.containers;

import com.sun.net.httpserver.HttpServer;
import io.slurmlet.model.plan.Artifact;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fetcher against a real HTTP server on loopback. */
class FetcherTest {

    static final byte[] DEB = "enroot's package".getBytes(StandardCharsets.UTF_8);
    static final String DEB_SHA256 = io.slurmlet.agent.reconcile.ManagedFiles.sha256(DEB);

    @TempDir
    Path cache;

    HttpServer server;
    final Map<String, byte[]> served = new ConcurrentHashMap<>();

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = served.get(exchange.getRequestURI().getPath());
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    Artifact artifact(String sha256) {
        return new Artifact("enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", sha256,
                "http://127.0.0.1:" + server.getAddress().getPort() + "/mirror/enroot_4.1.2-1_amd64.deb");
    }

    Fetcher fetcher() {
        return Fetcher.of(cache, 1024, Duration.ofSeconds(10), (path, timeout) -> {
            throw new IOException("this test follows no leader");
        });
    }

    @Test
    void theBytesTheTablePinsAreHandedOverAndKeptThenCheckedAgainRatherThanTrusted() throws IOException {
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", DEB);
        Path file = fetcher().fetch(artifact(DEB_SHA256));
        assertArrayEquals(DEB, Files.readAllBytes(file));
        served.clear();
        assertEquals(file, fetcher().fetch(artifact(DEB_SHA256)), "kept: the mirror is not asked again");
        Files.writeString(file, "changed in the cache");
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", DEB);
        assertArrayEquals(DEB, Files.readAllBytes(fetcher().fetch(artifact(DEB_SHA256))), "a cached file that differs is fetched again");
    }

    @Test
    void otherBytesAreRefusedWithBothDigestsAndNothingIsLeftBehind() throws IOException {
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", "a trojan".getBytes(StandardCharsets.UTF_8));
        IOException e = assertThrows(IOException.class, () -> fetcher().fetch(artifact(DEB_SHA256)));
        String got = io.slurmlet.agent.reconcile.ManagedFiles.sha256("a trojan".getBytes(StandardCharsets.UTF_8));
        assertTrue(e.getMessage().contains("has sha256 " + got + ", and the leader's table pins " + DEB_SHA256 + ": refused, nothing installed"),
                e.getMessage());
        try (var left = Files.list(cache)) {
            assertEquals(0, left.count(), "no partial or refused file stays in the cache");
        }
    }

    @Test
    void aMissingFileAndAnOversizedOneAreRefused() {
        IOException missing = assertThrows(IOException.class, () -> fetcher().fetch(artifact(DEB_SHA256)));
        assertTrue(missing.getMessage().endsWith("answered HTTP 404: nothing installed"), missing.getMessage());
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", new byte[4096]);
        IOException large = assertThrows(IOException.class, () -> fetcher().fetch(artifact(DEB_SHA256)));
        assertTrue(large.getMessage().contains("sends over 1024 bytes"), large.getMessage());
    }

    @Test
    void aFileTheLeaderHoldsComesFromTheLeaderThisMachineFollowsWhateverHostThePlanNamesAndIsCheckedAlike() throws IOException {
        java.util.List<String> asked = new java.util.ArrayList<>();
        java.util.Map<String, byte[]> leader = new java.util.HashMap<>();
        Fetcher fetcher = Fetcher.of(cache, 1024, Duration.ofSeconds(10), (path, timeout) -> {
            asked.add(path);
            byte[] body = leader.get(path);
            if (body == null) {
                throw new IOException("the leader at https://10.0.0.2:7818 refused " + path + " (404): the leader holds no such file");
            }
            return new java.io.ByteArrayInputStream(body);
        });
        String path = ArtifactTable.LEADER_FILES + DEB_SHA256 + "/enroot_4.1.2-1_amd64.deb";
        // Planned by a leader that has handed over since: its host is not asked, the one this machine follows is.
        Artifact held = new Artifact("enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", DEB_SHA256, "https://10.0.0.1:7818" + path);
        leader.put(path, DEB);
        assertArrayEquals(DEB, Files.readAllBytes(fetcher.fetch(held)));
        assertEquals(java.util.List.of(path), asked);

        Files.delete(cache.resolve(DEB_SHA256 + "-enroot_4.1.2-1_amd64.deb"));
        leader.put(path, "a trojan".getBytes(StandardCharsets.UTF_8));
        IOException e = assertThrows(IOException.class, () -> fetcher.fetch(held));
        assertTrue(e.getMessage().startsWith("enroot_4.1.2-1_amd64.deb from the leader has sha256 "), e.getMessage());
        assertTrue(e.getMessage().contains("and the leader's table pins " + DEB_SHA256 + ": refused, nothing installed"), e.getMessage());
        leader.clear();
        assertTrue(assertThrows(IOException.class, () -> fetcher.fetch(held)).getMessage().contains("the leader holds no such file"));
        try (var left = Files.list(cache)) {
            assertEquals(0, left.count(), "no partial or refused file stays in the cache");
        }
        // A mirror's file is still fetched from the mirror.
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", DEB);
        assertArrayEquals(DEB, Files.readAllBytes(fetcher.fetch(artifact(DEB_SHA256))));
        assertEquals(3, asked.size());
    }
}
