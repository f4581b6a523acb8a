package io.slurmlet.agent.store;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real etcd (Debian's etcd-server, which dev/host-tools installs) on loopback, in a folder of the
 * test's: plain http, or TLS with client certificates checked (--client-cert-auth) from a CA that
 * openssl makes here. One member; stopped by {@link #close}.
 */
public final class EtcdProcess implements AutoCloseable {

    final Path dir;
    public final String endpoint;
    final boolean tls;
    private final Process process;

    private EtcdProcess(Path dir, String endpoint, boolean tls, Process process) {
        this.dir = dir;
        this.endpoint = endpoint;
        this.tls = tls;
        this.process = process;
    }

    public static EtcdProcess start(Path dir, boolean tls) throws IOException, InterruptedException {
        Path etcd = Path.of("/usr/bin/etcd");
        if (!Files.isExecutable(etcd)) {
            throw new IllegalStateException("the etcd store's tests run a real etcd, and " + etcd
                    + " is missing: dev/host-tools install " + "(Debian's etcd-server)");
        }
        int client = freePort();
        int peer = freePort();
        String scheme = tls ? "https" : "http";
        String endpoint = scheme + "://127.0.0.1:" + client;
        List<String> argv = new ArrayList<>(List.of(
                etcd.toString(),
                "--name",
                "t",
                "--data-dir",
                dir.resolve("data").toString(),
                "--listen-client-urls",
                endpoint,
                "--advertise-client-urls",
                endpoint,
                "--listen-peer-urls",
                "http://127.0.0.1:" + peer,
                "--initial-advertise-peer-urls",
                "http://127.0.0.1:" + peer,
                "--initial-cluster",
                "t=http://127.0.0.1:" + peer,
                "--log-level",
                "warn"));
        if (tls) {
            certificates(dir);
            argv.addAll(List.of(
                    "--cert-file",
                    dir.resolve("server.crt").toString(),
                    "--key-file",
                    dir.resolve("server.key").toString(),
                    "--client-cert-auth",
                    "--trusted-ca-file",
                    dir.resolve("ca.crt").toString()));
        }
        Process p = new ProcessBuilder(argv)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("etcd.log").toFile())
                .start();
        EtcdProcess started = new EtcdProcess(dir, endpoint, tls, p);
        if (!answer(List.of(started), Duration.ofSeconds(30))) {
            p.destroyForcibly();
            throw new IllegalStateException("etcd did not start: " + Files.readString(dir.resolve("etcd.log")));
        }
        return started;
    }

    /**
     * {@code members} etcd members on loopback forming one cluster (plain http), each in a folder of
     * its own under {@code dir}; returned once every member answers.
     */
    static List<EtcdProcess> cluster(Path dir, int members) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return clusterOnce(Files.createDirectories(dir.resolve("try" + attempt)), members);
            } catch (PortTaken e) {
                if (attempt == 3) {
                    throw new IllegalStateException(e.getMessage());
                }
            }
        }
    }

    /** A member could not bind its port: some other process took it after it was found free. */
    private static final class PortTaken extends IOException {
        PortTaken(String message) {
            super(message);
        }
    }

    private static List<EtcdProcess> clusterOnce(Path dir, int members) throws IOException, InterruptedException {
        Path etcd = Path.of("/usr/bin/etcd");
        if (!Files.isExecutable(etcd)) {
            throw new IllegalStateException("the etcd store's tests run a real etcd, and " + etcd
                    + " is missing: dev/host-tools install " + "(Debian's etcd-server)");
        }
        List<Integer> clients = new ArrayList<>();
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            clients.add(freePort());
            peers.add("m" + i + "=http://127.0.0.1:" + freePort());
        }
        List<EtcdProcess> started = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            Path own = Files.createDirectories(dir.resolve("m" + i));
            String endpoint = "http://127.0.0.1:" + clients.get(i);
            String peer = peers.get(i).substring(peers.get(i).indexOf('=') + 1);
            Process p = new ProcessBuilder(
                            etcd.toString(),
                            "--name",
                            "m" + i,
                            "--data-dir",
                            own.resolve("data").toString(),
                            "--listen-client-urls",
                            endpoint,
                            "--advertise-client-urls",
                            endpoint,
                            "--listen-peer-urls",
                            peer,
                            "--initial-advertise-peer-urls",
                            peer,
                            "--initial-cluster",
                            String.join(",", peers),
                            "--initial-cluster-state",
                            "new",
                            "--log-level",
                            "warn")
                    .redirectErrorStream(true)
                    .redirectOutput(own.resolve("etcd.log").toFile())
                    .start();
            started.add(new EtcdProcess(own, endpoint, false, p));
        }
        if (!answer(started, Duration.ofSeconds(60))) {
            EtcdProcess m = started.stream()
                    .filter(each -> !each.process.isAlive() || !each.ready())
                    .findFirst()
                    .orElse(started.get(0));
            for (EtcdProcess each : started) {
                each.kill();
            }
            String log = Files.readString(m.dir.resolve("etcd.log"));
            if (log.contains("address already in use")) {
                throw new PortTaken("etcd member did not start: " + log);
            }
            throw new IllegalStateException("etcd member did not start: " + log);
        }
        return started;
    }

    /** Whether every one of {@code members} answers within {@code within}; false as soon as one has exited. */
    private static boolean answer(List<EtcdProcess> members, Duration within) {
        try {
            await().atMost(within)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> members.stream().anyMatch(m -> !m.process.isAlive())
                            || members.stream().allMatch(EtcdProcess::ready));
        } catch (ConditionTimeoutException e) {
            return false;
        }
        return members.stream().allMatch(m -> m.process.isAlive());
    }

    /** A store reaching every member of {@code members}, as a leader-eligible agent's. */
    public static EtcdStore store(List<EtcdProcess> members, String prefix) throws StorageException {
        return store(members, prefix, Duration.ofSeconds(2));
    }

    /** {@link #store(List, String)} whose requests may each take {@code timeout}. */
    public static EtcdStore store(List<EtcdProcess> members, String prefix, Duration timeout) throws StorageException {
        return EtcdStore.connect(
                members.stream().map(m -> m.endpoint).toList(),
                java.util.Optional.empty(),
                java.util.Optional.empty(),
                java.util.Optional.empty(),
                prefix,
                timeout);
    }

    /** A connected store under {@code prefix}, with the client certificate when etcd checks one. */
    EtcdStore store(String prefix) throws StorageException {
        return tls
                ? EtcdStore.connect(
                        List.of(endpoint),
                        java.util.Optional.of(dir.resolve("ca.crt")),
                        java.util.Optional.of(dir.resolve("client.crt")),
                        java.util.Optional.of(dir.resolve("client.key")),
                        prefix,
                        Duration.ofSeconds(5))
                : EtcdStore.connect(
                        List.of(endpoint),
                        java.util.Optional.empty(),
                        java.util.Optional.empty(),
                        java.util.Optional.empty(),
                        prefix,
                        Duration.ofSeconds(5));
    }

    /** etcdctl, as an admin would run it against this etcd. */
    public String etcdctl(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("etcdctl", "--endpoints", endpoint));
        if (tls) {
            argv.addAll(List.of(
                    "--cacert",
                    dir.resolve("ca.crt").toString(),
                    "--cert",
                    dir.resolve("client.crt").toString(),
                    "--key",
                    dir.resolve("client.key").toString()));
        }
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", argv) + ": " + out);
        }
        return out;
    }

    private boolean ready() {
        try {
            etcdctl("endpoint", "health");
            return true;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** A CA, etcd's server certificate for 127.0.0.1 and a client certificate, all by openssl. */
    private static void certificates(Path dir) throws IOException, InterruptedException {
        String script = """
                set -e
                cd "$1"
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-etcd-ca 2>/dev/null
                for who in server client; do
                  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $who.key -out $who.csr -subj /CN=$who 2>/dev/null
                  printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth,clientAuth\\n' >$who.ext
                  openssl x509 -req -in $who.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $who.crt -days 2 -extfile $who.ext 2>/dev/null
                done
                """;
        Process p = new ProcessBuilder("bash", "-c", script, "bash", dir.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("openssl could not make the test's certificates: " + out);
        }
    }

    /**
     * A loopback port free now, taken below the kernel's ephemeral range: a port the kernel hands out
     * (port 0) is soon handed out again to some client's outgoing connection, and etcd then fails with
     * "address already in use" (seen in CI). Below the range only a listener can take it.
     */
    private static int freePort() throws IOException {
        int[] ephemeral = ephemeralRange();
        int low = 10_000;
        int high = Math.max(low + 1_000, ephemeral[0]);
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int tries = 0; tries < 200; tries++) {
            int port = random.nextInt(low, high);
            if (port >= ephemeral[0] && port <= ephemeral[1]) {
                continue;
            }
            try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // someone's; try another
            }
        }
        throw new IOException("no free loopback port in " + low + "-" + high + " after 200 tries");
    }

    private static int[] ephemeralRange() {
        try {
            String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim()
                    .split("\\s+");
            return new int[] {Integer.parseInt(range[0]), Integer.parseInt(range[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32768, 60999};
        }
    }

    /**
     * Holds etcd as a member cut off from the network is to its clients (SIGSTOP): their connections
     * stay open, and what they send gets no answer and no reset; {@link #resume()} lets it go on.
     */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** Stops etcd as a crash would (SIGKILL). */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
