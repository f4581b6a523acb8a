package io.slurmlet.bench;

import io.slurmlet.agent.store.EtcdStore;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One write of the leader's settings (a 4 KiB document, compared with the version read, durable
 * before the answer) and one read, in the file store and in etcd: Debian's etcd-server, one member
 * on loopback with its data in the same temporary folder (its write-ahead log fsynced per write, as
 * the file store's file and folder are), plain http. What a {@code ctl slurm set} or a lend costs
 * the store, not the rest of it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreBenchmark {

    @Param({"file", "etcd"})
    String store;

    Path dir;
    Process etcd;
    Store kept;
    long version;
    final byte[] settings = new byte[4096];

    @Setup(Level.Trial)
    public void open() throws Exception {
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "slurmlet-store-bench-");
        java.util.Arrays.fill(settings, (byte) 'x');
        if (store.equals("file")) {
            kept = FileStore.open(dir.resolve("state"));
        } else {
            int client = freePort();
            int peer = freePort();
            String endpoint = "http://127.0.0.1:" + client;
            etcd = new ProcessBuilder(
                            "etcd",
                            "--name",
                            "b",
                            "--data-dir",
                            dir.resolve("etcd").toString(),
                            "--listen-client-urls",
                            endpoint,
                            "--advertise-client-urls",
                            endpoint,
                            "--listen-peer-urls",
                            "http://127.0.0.1:" + peer,
                            "--initial-advertise-peer-urls",
                            "http://127.0.0.1:" + peer,
                            "--initial-cluster",
                            "b=http://127.0.0.1:" + peer,
                            "--log-level",
                            "warn")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("etcd.log").toFile())
                    .start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (kept == null) {
                try {
                    kept = EtcdStore.connect(
                            List.of(endpoint),
                            Optional.empty(),
                            Optional.empty(),
                            Optional.empty(),
                            "/slurmlet/",
                            Duration.ofSeconds(2));
                } catch (IOException e) {
                    if (!etcd.isAlive() || System.nanoTime() > until) {
                        throw new IllegalStateException(
                                "etcd did not start (Debian's etcd-server): "
                                        + Files.readString(dir.resolve("etcd.log")),
                                e);
                    }
                    Thread.sleep(200);
                }
            }
        }
        version = kept.put("settings.json", settings, Store.ABSENT).orElseThrow();
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        if (kept instanceof EtcdStore e) {
            e.close();
        }
        if (etcd != null) {
            etcd.destroyForcibly().waitFor();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The settings written from the version read, durable before the answer. */
    @Benchmark
    public long write() throws IOException {
        settings[0]++;
        version = kept.put("settings.json", settings, version).orElseThrow();
        return version;
    }

    @Benchmark
    public byte[] read() throws IOException {
        return kept.get("settings.json").orElseThrow().value();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
