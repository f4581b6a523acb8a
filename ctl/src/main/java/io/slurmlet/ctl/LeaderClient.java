package io.slurmlet.ctl;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One HTTP request at a time to the leader, over TCP or its unix socket, each with a deadline;
 * answers status, headers and body, whatever the status. A failure to get an answer is a
 * {@link CtlException} that names the address tried and why.
 *
 * <p>The token goes only over TCP, only in the {@code Authorization} header, and never into a
 * message.
 */
public final class LeaderClient implements AutoCloseable {

    /** What ctl waits for a connection, and for the whole answer. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private static final String USER_AGENT = "slurmlet-ctl/" + CtlVersion.version();

    /**
     * The leader's answer.
     *
     * @param headers by lower-case name, the first value of each
     */
    public record Response(int status, Map<String, String> headers, String body) {

        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }

        public boolean ok() {
            return status / 100 == 2;
        }
    }

    private final Vertx vertx;
    private final LeaderAddress address;
    private final String origin;
    private final Optional<String> token;
    private final Duration timeout;
    private HttpClient client;
    private Context context;

    /**
     * @param origin  where the address came from, for messages: empty, or " (from SLURMLET_LEADER)"
     * @param token   sent as a bearer token over TCP; ignored for the unix socket
     * @param timeout for the connection, and for the whole answer
     */
    public LeaderClient(Vertx vertx, LeaderAddress address, String origin, Optional<String> token, Duration timeout) {
        this.vertx = vertx;
        this.address = address;
        this.origin = origin;
        this.token = address.isSocket() ? Optional.empty() : token;
        this.timeout = timeout;
    }

    public LeaderAddress address() {
        return address;
    }

    /** Whether a token goes with each request. */
    public boolean sendsToken() {
        return token.isPresent();
    }

    /**
     * Sends one request and waits for the whole answer.
     *
     * @param headers extra headers (Content-Type, If-Match)
     * @param body    the body, or null for none
     * @throws CtlException when no answer came: names the address, the cause and what to check
     */
    public Response send(HttpMethod method, String path, Map<String, String> headers, String body) {
        return send(method, path, headers, body == null ? null : Buffer.buffer(body, "UTF-8"));
    }

    /** {@link #send(HttpMethod, String, Map, String)} with a body of bytes (a file). */
    public Response send(HttpMethod method, String path, Map<String, String> headers, byte[] body) {
        return send(method, path, headers, body == null ? null : Buffer.buffer(body));
    }

    private Response send(HttpMethod method, String path, Map<String, String> headers, Buffer body) {
        if (address.isSocket() && !vertx.isNativeTransportEnabled()) {
            Throwable why = vertx.unavailableNativeTransportCause();
            throw new CtlException(
                    ("cannot reach the leader at %s%s: this ctl cannot open unix sockets here (%s); "
                                    + "use --leader http://HOST:%d")
                            .formatted(
                                    address,
                                    origin,
                                    why == null ? "Netty's native transport is off" : IoErrors.describe(why),
                                    LeaderAddress.DEFAULT_PORT),
                    why);
        }
        long ms = timeout.toMillis();
        RequestOptions options = new RequestOptions()
                .setMethod(method)
                .setURI(path)
                .setConnectTimeout(ms)
                .setIdleTimeout(ms);
        if (address.isSocket()) {
            options.setServer(SocketAddress.domainSocketAddress(address.socket().toString()))
                    .setHost("localhost")
                    .setPort(80);
        } else {
            options.setHost(address.host())
                    .setPort(address.port())
                    .setSsl(address.scheme() == LeaderAddress.Scheme.HTTPS);
        }
        options.putHeader("Accept", "application/json").putHeader("User-Agent", USER_AGENT);
        headers.forEach(options::putHeader);
        token.ifPresent(t -> options.putHeader("Authorization", "Bearer " + t));

        // Every exchange runs on this client's one Vert.x context (one event loop thread), where its
        // connection lives too: begun from this thread instead, a response's head and body can be
        // handled on different threads, and a body that comes before body() asks for it is lost.
        CompletableFuture<Response> answer = new CompletableFuture<>();
        HttpClient http = client();
        context.runOnContext(v -> http.request(options)
                .compose(request -> body == null ? request.send() : request.send(body))
                .compose(response -> response.body().map(b -> toResponse(response, b)))
                .onComplete(result -> {
                    if (result.succeeded()) {
                        answer.complete(result.result());
                    } else {
                        answer.completeExceptionally(result.cause());
                    }
                }));
        try {
            return answer.get(ms, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close();
            throw noAnswer(e);
        } catch (ExecutionException e) {
            throw unreachable(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CtlException("interrupted while waiting for the leader at " + address, e);
        }
    }

    private CtlException noAnswer(Throwable cause) {
        return new CtlException(
                "no answer from the leader at %s%s within %s (is it overloaded, or is the address wrong? check --leader)"
                        .formatted(address, origin, seconds(timeout)),
                cause);
    }

    private CtlException unreachable(Throwable cause) {
        String why = IoErrors.describe(cause);
        if (why.startsWith("no answer")) {
            return noAnswer(cause);
        }
        if (why.startsWith("no connection")) {
            why = why.replace("the time allowed", seconds(timeout));
        }
        String hint;
        if (address.isSocket()) {
            hint = switch (why) {
                case "no such file" -> "is slurmlet-agent running on this machine? use --leader";
                case "permission denied" ->
                    "the socket is root-only: run ctl as root, or use --leader http://HOST:"
                            + LeaderAddress.DEFAULT_PORT + " with a token";
                case "connection refused" ->
                    "the socket is there but no agent listens on it: is slurmlet-agent running? use --leader";
                default -> "use --leader";
            };
        } else {
            hint = switch (why) {
                case "connection refused" -> "is slurmlet-agent running there, and is it the leader? check --leader";
                case "unknown host" -> "check the host name in --leader";
                default -> "check --leader";
            };
        }
        return new CtlException(
                "cannot reach the leader at %s%s: %s (%s)".formatted(address, origin, why, hint), cause);
    }

    private static Response toResponse(HttpClientResponse response, Buffer body) {
        Map<String, String> headers = new TreeMap<>();
        response.headers().forEach(h -> headers.putIfAbsent(h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
        return new Response(response.statusCode(), headers, body.toString(StandardCharsets.UTF_8));
    }

    private HttpClient client() {
        if (client == null) {
            context = vertx.getOrCreateContext();
            client = vertx.createHttpClient(new HttpClientOptions()
                    .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                    .setMaxPoolSize(1));
        }
        return client;
    }

    static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** Closes the connection, waiting at most a second. */
    @Override
    public void close() {
        if (client != null) {
            HttpClient c = client;
            client = null;
            try {
                c.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.SECONDS);
            } catch (Exception e) {
                // Closing is best effort: the process ends anyway.
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
