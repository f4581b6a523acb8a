package io.slurmlet.systemtests;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real slurmlet agent, started through the launcher of the installed DEB ({@link Installed}:
 * {@code /usr/lib/slurmlet/bin/slurmlet-agent}) as a site would run it, with its state in a folder of the test's own, on a free loopback port
 * and a unix socket in that folder.
 */
final class AgentProcess implements AutoCloseable {

    static final Path ROOT =
            Path.of(System.getProperty("slurmlet.root", "..")).toAbsolutePath().normalize();
    static final Path AGENT = Installed.bin("slurmlet-agent");
    static final Path CTL = Installed.bin("ctl");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    final Path stateDir;
    final int port;
    final Path socket;
    final Path log;
    private final Map<String, String> env;
    private Process process;

    AgentProcess(Path stateDir) throws IOException {
        this(stateDir, Map.of());
    }

    /** @param env more of the agent's environment (SLURMLET_* settings of agent.yaml) */
    AgentProcess(Path stateDir, Map<String, String> env) throws IOException {
        this.env = Map.copyOf(env);
        this.stateDir = stateDir;
        this.port = LoopbackPorts.free();
        this.socket = stateDir.resolve("leader.sock");
        this.log = stateDir.resolveSibling(stateDir.getFileName() + ".log");
    }

    /** Starts the agent and returns once it answers ready. */
    AgentProcess start() throws IOException, InterruptedException {
        launch();
        awaitReady(Duration.ofSeconds(30));
        return this;
    }

    /** Starts the agent and returns at once (one that stands by is not ready: {@link #awaitReady} for when it is). */
    AgentProcess launch() throws IOException {
        Files.createDirectories(stateDir);
        ProcessBuilder pb = new ProcessBuilder(AGENT.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment()
                .putAll(Map.of(
                        "SLURMLET_STATE_DIR", stateDir.toString(),
                        "QUARKUS_HTTP_PORT", Integer.toString(port),
                        "QUARKUS_HTTP_DOMAIN_SOCKET", socket.toString(),
                        "QUARKUS_CONFIG_LOCATIONS",
                                stateDir.resolve("agent.yaml").toString(),
                        // The leader alone: its node role would manage this very machine.
                        "SLURMLET_NODE_ENABLED", "false",
                        "SLURMLET_LEADER_AGENT_HOST", "127.0.0.1",
                        "SLURMLET_LEADER_AGENT_PORT", "0"));
        pb.environment().putAll(env);
        process = pb.start();
        return this;
    }

    void awaitReady(Duration timeout) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the agent exited with " + process.exitValue() + ":\n" + logText());
            }
            try {
                HttpResponse<String> r = HTTP.send(
                        HttpRequest.newBuilder(uri("/q/health/ready"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the agent was not ready after " + timeout + ":\n" + logText());
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no flush, as a power cut or the OOM killer would. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the agent survived SIGKILL");
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    String leaderUrl() {
        return "http://127.0.0.1:" + port;
    }

    Path tokenFile() {
        return stateDir.resolve("admin.token");
    }

    String token() throws IOException {
        return Files.readString(tokenFile()).strip();
    }

    /** One API call with the admin token. */
    HttpResponse<String> call(String method, String path, String body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token())
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/merge-patch+json");
        }
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    List<String> logLines() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
