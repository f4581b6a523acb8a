package io.slurmlet.agent.node;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLException;

/**
 * One exchange with a leader, as every call of an agent's makes it: a leader that cannot be reached
 * is said so with its address and the reason, a call to a leader the election no longer names is
 * given up, and an answer that is not a success is a {@link LeaderLink.Refused} with the leader's own
 * sentence and its Retry-After.
 */
public final class LeaderCalls {

    /** How long one call may take beyond what it waits for. */
    static final Duration CALL = Duration.ofSeconds(30);

    private LeaderCalls() {}

    /** The longest reconnection window taken from a leader: a machine away from it longer than this is not spread further. */
    public static final Duration LONGEST_WINDOW = Duration.ofMinutes(10);

    /** A leader's window as its header gives it, in whole seconds; what is not one is taken as none. */
    static Duration window(String seconds) {
        try {
            long s = Long.parseLong(seconds.strip());
            return s <= 0 ? Duration.ZERO : s >= LONGEST_WINDOW.toSeconds() ? LONGEST_WINDOW : Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }

    /** One request; a leader that cannot be reached is said so, with the address and the reason. */
    static <T> HttpResponse<T> exchange(
            HttpClient client, URI base, HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        return exchange(client, base, request, body, null);
    }

    /** How often a call to a leader an election named looks whether it still names it. */
    public static final Duration LOOK = Duration.ofMillis(250);

    /** {@link #exchange(HttpClient, URI, HttpRequest, HttpResponse.BodyHandler)}, given up once {@code named} (if given) is false. */
    static <T> HttpResponse<T> exchange(
            HttpClient client, URI base, HttpRequest request, HttpResponse.BodyHandler<T> body, BooleanSupplier named)
            throws IOException, InterruptedException {
        try {
            return named == null
                    ? client.send(request, body)
                    : whileNamed(client.sendAsync(request, body), base, named);
        } catch (ConnectException e) {
            throw new IOException(
                    "cannot reach the leader at %s: connection refused (is slurmlet-agent running there, "
                                    .formatted(base)
                            + "and is port " + base.getPort() + " open to this machine?)",
                    e);
        } catch (HttpTimeoutException e) {
            throw new IOException("the leader at %s did not answer in time".formatted(base), e);
        } catch (SSLException e) {
            throw new IOException(
                    "TLS with the leader at %s failed: %s (a leader whose certificate the pinned CA did not sign "
                                    .formatted(base, e.getMessage())
                            + "is refused)",
                    e);
        } catch (IOException e) {
            throw new IOException(
                    "the exchange with the leader at %s failed: %s"
                            .formatted(
                                    base, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
                    e);
        }
    }

    private static <T> HttpResponse<T> whileNamed(
            CompletableFuture<HttpResponse<T>> answer, URI base, BooleanSupplier named)
            throws IOException, InterruptedException {
        try {
            while (true) {
                try {
                    return answer.get(LOOK.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (!named.getAsBoolean()) {
                        answer.cancel(true);
                        throw new IOException("given up: the election names another leader than " + base + " now");
                    }
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        }
    }

    static void checked(URI base, String path, HttpResponse<byte[]> response) throws LeaderLink.Refused {
        checked(
                base,
                path,
                response.statusCode(),
                response.body(),
                response.headers().firstValue("Retry-After").flatMap(LeaderCalls::retryAfter));
    }

    static void checked(URI base, String path, int status, byte[] body) throws LeaderLink.Refused {
        checked(base, path, status, body, Optional.empty());
    }

    /**
     * A leader's Retry-After in whole seconds, up to {@link #LONGEST_WINDOW}; empty for what is not
     * one (an HTTP date, which no leader sends, included).
     */
    static Optional<Duration> retryAfter(String seconds) {
        Duration d = window(seconds);
        return d.isZero() ? Optional.empty() : Optional.of(d);
    }

    static void checked(URI base, String path, int status, byte[] body, Optional<Duration> retryAfter)
            throws LeaderLink.Refused {
        if (status / 100 == 2) {
            return;
        }
        String message;
        try {
            message = SettingsJson.STRICT.readValue(body, ApiError.class).error();
        } catch (IOException e) {
            message = new String(body, StandardCharsets.UTF_8).strip();
        }
        throw new LeaderLink.Refused(
                status,
                "the leader at %s refused %s (%d): %s".formatted(base, path.replaceAll("\\?.*", ""), status, message),
                retryAfter);
    }
}
