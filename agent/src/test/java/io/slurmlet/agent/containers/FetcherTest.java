package io.slurmlet.agent.containers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.slurmlet.model.plan.Artifact;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        return new Artifact(
                "enroot",
                "4.1.2",
                "amd64",
                "deb",
                "enroot_4.1.2-1_amd64.deb",
                sha256,
                "http://127.0.0.1:" + server.getAddress().getPort() + "/mirror/enroot_4.1.2-1_amd64.deb");
    }

    /** The artifact as a table with sizes pins it: its digest and {@code bytes}. */
    Artifact sized(String sha256, long bytes) {
        Artifact a = artifact(sha256);
        return new Artifact(a.name(), a.version(), a.arch(), a.format(), a.file(), a.sha256(), a.url(), bytes);
    }

    void nothingKept() throws IOException {
        try (var left = Files.list(cache)) {
            assertEquals(List.of(), left.toList(), "no partial or refused file stays in the cache");
        }
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
        assertArrayEquals(
                DEB,
                Files.readAllBytes(fetcher().fetch(artifact(DEB_SHA256))),
                "a cached file that differs is fetched again");
    }

    @Test
    void otherBytesAreRefusedWithBothDigestsAndNothingIsLeftBehind() throws IOException {
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", "a trojan".getBytes(StandardCharsets.UTF_8));
        IOException e = assertThrows(IOException.class, () -> fetcher().fetch(artifact(DEB_SHA256)));
        String got = io.slurmlet.agent.reconcile.ManagedFiles.sha256("a trojan".getBytes(StandardCharsets.UTF_8));
        assertTrue(
                e.getMessage()
                        .contains("has sha256 " + got + ", and the leader's table pins " + DEB_SHA256
                                + ": refused, nothing installed"),
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
    void aFileTheLeaderHoldsComesFromTheLeaderThisMachineFollowsWhateverHostThePlanNamesAndIsCheckedAlike()
            throws IOException {
        java.util.List<String> asked = new java.util.ArrayList<>();
        java.util.Map<String, byte[]> leader = new java.util.HashMap<>();
        Fetcher fetcher = Fetcher.of(cache, 1024, Duration.ofSeconds(10), (path, timeout) -> {
            asked.add(path);
            byte[] body = leader.get(path);
            if (body == null) {
                throw new IOException("the leader at https://10.0.0.2:7818 refused " + path
                        + " (404): the leader holds no such file");
            }
            return new java.io.ByteArrayInputStream(body);
        });
        String path = ArtifactTable.LEADER_FILES + DEB_SHA256 + "/enroot_4.1.2-1_amd64.deb";
        // Planned by a leader that has handed over since: its host is not asked, the one this machine follows is.
        Artifact held = new Artifact(
                "enroot",
                "4.1.2",
                "amd64",
                "deb",
                "enroot_4.1.2-1_amd64.deb",
                DEB_SHA256,
                "https://10.0.0.1:7818" + path);
        leader.put(path, DEB);
        assertArrayEquals(DEB, Files.readAllBytes(fetcher.fetch(held)));
        assertEquals(java.util.List.of(path), asked);

        Files.delete(cache.resolve(DEB_SHA256 + "-enroot_4.1.2-1_amd64.deb"));
        leader.put(path, "a trojan".getBytes(StandardCharsets.UTF_8));
        IOException e = assertThrows(IOException.class, () -> fetcher.fetch(held));
        assertTrue(e.getMessage().startsWith("enroot_4.1.2-1_amd64.deb from the leader has sha256 "), e.getMessage());
        assertTrue(
                e.getMessage().contains("and the leader's table pins " + DEB_SHA256 + ": refused, nothing installed"),
                e.getMessage());
        leader.clear();
        assertTrue(assertThrows(IOException.class, () -> fetcher.fetch(held))
                .getMessage()
                .contains("the leader holds no such file"));
        try (var left = Files.list(cache)) {
            assertEquals(0, left.count(), "no partial or refused file stays in the cache");
        }
        // A mirror's file is still fetched from the mirror.
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", DEB);
        assertArrayEquals(DEB, Files.readAllBytes(fetcher.fetch(artifact(DEB_SHA256))));
        assertEquals(3, asked.size());
    }

    /**
     * A mirror that sends more than the table's size is read no further than the byte past it: the
     * fetch is refused there, before any digest (the first bytes are the pinned file's own), naming
     * the file, the size pinned and the fix, and nothing is kept; the mirror's 64 MiB are not taken.
     */
    @Test
    void aMirrorThatSendsMoreThanThePinnedSizeIsCutRightAfterItBeforeAnyDigestAndNothingIsKept() throws Exception {
        byte[] padded = java.util.Arrays.copyOf(DEB, 64 << 20); // the pinned file, then 64 MiB of zeros
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        server.createContext("/endless/", exchange -> {
            try (var out = exchange.getResponseBody()) {
                exchange.sendResponseHeaders(200, padded.length);
                for (int at = 0; at < padded.length; at += 8192) {
                    out.write(padded, at, 8192);
                    written.addAndGet(8192);
                }
            } catch (IOException e) {
                // the fetcher closed the connection: what this mirror managed to send is counted
            } finally {
                stopped.countDown();
            }
        });
        Artifact a = sized(DEB_SHA256, DEB.length);
        Artifact endless = new Artifact(
                a.name(),
                a.version(),
                a.arch(),
                a.format(),
                a.file(),
                a.sha256(),
                a.url().replace("/mirror/", "/endless/"),
                a.bytes());
        IOException e = assertThrows(IOException.class, () -> fetcher().fetch(endless));
        assertEquals(
                ("enroot_4.1.2-1_amd64.deb from %s sends more than the %d bytes the leader's table pins: cut at byte %d, refused, "
                                + "nothing installed (the mirror serves another file than the table names: put the right one there, or the table's "
                                + "bytes right)")
                        .formatted(endless.url(), DEB.length, DEB.length + 1),
                e.getMessage());
        nothingKept();
        assertTrue(
                stopped.await(10, java.util.concurrent.TimeUnit.SECONDS),
                "the mirror's answer ends once the fetcher stops reading");
        assertTrue(
                written.get() < padded.length,
                "the fetcher stopped taking the mirror's bytes: " + written.get() + " sent");
    }

    /** The leader's answer alike, counted at the stream the fetcher reads: the pinned size and one byte, not one more. */
    @Test
    void aFileFromTheLeaderIsReadNoFurtherThanTheByteAfterItsPinnedSize() throws IOException {
        java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();
        java.io.InputStream endless = new java.io.InputStream() {
            @Override
            public int read() {
                long at = read.getAndIncrement();
                return at < DEB.length ? DEB[(int) at] & 0xff : 'x';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                for (int i = 0; i < len; i++) {
                    b[off + i] = (byte) read();
                }
                return len;
            }
        };
        Fetcher fetcher = Fetcher.of(cache, 1L << 30, Duration.ofSeconds(10), (path, timeout) -> endless);
        String path = ArtifactTable.LEADER_FILES + DEB_SHA256 + "/enroot_4.1.2-1_amd64.deb";
        Artifact held = new Artifact(
                "enroot",
                "4.1.2",
                "amd64",
                "deb",
                "enroot_4.1.2-1_amd64.deb",
                DEB_SHA256,
                "https://10.0.0.1:7818" + path,
                (long) DEB.length);
        IOException e = assertThrows(IOException.class, () -> fetcher.fetch(held));
        assertEquals(
                ("enroot_4.1.2-1_amd64.deb from the leader sends more than the %d bytes the leader's table pins: cut at byte %d, "
                                + "refused, nothing installed (the leader serves another file than the table names: put the right one there, or the "
                                + "table's bytes right)")
                        .formatted(DEB.length, DEB.length + 1),
                e.getMessage());
        assertEquals(DEB.length + 1, read.get(), "bytes read from the leader's stream");
        nothingKept();
    }

    /** Fewer bytes than the size pinned are refused by size, before the digest; a size over the ceiling fetches nothing. */
    @Test
    void fewerBytesThanThePinnedSizeAreRefusedAndASizeOverTheCeilingIsNotFetched() throws IOException {
        served.put("/mirror/enroot_4.1.2-1_amd64.deb", java.util.Arrays.copyOf(DEB, DEB.length - 3));
        IOException e = assertThrows(IOException.class, () -> fetcher().fetch(sized(DEB_SHA256, DEB.length)));
        assertEquals(
                ("enroot_4.1.2-1_amd64.deb from %s is %d bytes, and the leader's table pins %d: refused, nothing installed (the "
                                + "mirror serves another file than the table names, or sent it short: put the right one there, or the table's bytes "
                                + "right)")
                        .formatted(artifact(DEB_SHA256).url(), DEB.length - 3, DEB.length),
                e.getMessage());
        nothingKept();

        served.put("/mirror/enroot_4.1.2-1_amd64.deb", DEB);
        IOException huge = assertThrows(IOException.class, () -> fetcher().fetch(sized(DEB_SHA256, 4096)));
        assertEquals(
                "enroot_4.1.2-1_amd64.deb: the leader's plan pins 4096 bytes, more than the 1024 this machine takes of any file: "
                        + "nothing fetched (give the table the file's own size, as stat -c %s prints it)",
                huge.getMessage());
        assertArrayEquals(
                DEB,
                Files.readAllBytes(fetcher().fetch(sized(DEB_SHA256, DEB.length))),
                "the pinned size and digest: taken");
    }
}
