package io.slurmlet.agent.api;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * What every route of the agents' channel answers alike, on Vert.x's own routes rather than
 * through JAX-RS as {@link Answers} does for the admin API: a value as JSON, an error as JSON with
 * a sentence to act on, and a refusal that closes its connection before the body is taken in.
 */
final class ChannelAnswers {

    /** What a refused request may still send, read and dropped, before its connection is closed. */
    private static final int LINGER_BYTES = 65_536;

    private static final Duration LINGER = Duration.ofSeconds(2);

    private ChannelAnswers() {}

    static void error(RoutingContext ctx, int status, String message) {
        error(ctx, status, ApiError.of(message));
    }

    static void error(RoutingContext ctx, int status, ApiError error) {
        json(ctx, status, error);
    }

    /** {@code value} as the JSON body of a {@code status} answer, unless the request was answered already. */
    static void json(RoutingContext ctx, int status, Object value) {
        if (ctx.response().ended()) {
            return;
        }
        json(ctx, status, toJson(value));
    }

    /** {@code json}, already JSON. */
    static void json(RoutingContext ctx, int status, byte[] json) {
        if (!ctx.response().ended()) {
            ctx.response()
                    .setStatusCode(status)
                    .putHeader("Content-Type", "application/json")
                    .end(Buffer.buffer(json));
        }
    }

    /** The request's body as the body handler read it; none, for a request without one. */
    static byte[] bytes(RoutingContext ctx) {
        return ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
    }

    /** 401 before the body is read: the connection is closed after the answer, so its body is never taken in. */
    static void refuseUnread(RoutingContext ctx, String message) {
        closeAfter(ctx, 401, ApiError.of(message));
    }

    /**
     * Answers, then closes the connection: what is left of the request is never kept. Closing a
     * socket with unread bytes makes the kernel reset it, which can destroy the answer before the
     * client reads it; so the rest of the body is first read and dropped, up to
     * {@link #LINGER_BYTES} or {@link #LINGER}, as a web server's lingering close does.
     */
    static void closeAfter(RoutingContext ctx, int status, ApiError error) {
        if (ctx.response().ended()) {
            return;
        }
        HttpServerRequest request = ctx.request();
        HttpConnection connection = request.connection();
        Vertx vertx = ctx.vertx();
        byte[] body = toJson(error);
        ctx.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .putHeader("Connection", "close")
                .end(Buffer.buffer(body))
                .onComplete(done -> {
                    if (request.isEnded()) {
                        connection.close();
                        return;
                    }
                    long timer = vertx.setTimer(LINGER.toMillis(), t -> connection.close());
                    long[] dropped = {0};
                    request.handler(chunk -> {
                        dropped[0] += chunk.length();
                        if (dropped[0] > LINGER_BYTES) {
                            vertx.cancelTimer(timer);
                            connection.close();
                        }
                    });
                    request.endHandler(v -> {
                        vertx.cancelTimer(timer);
                        connection.close();
                    });
                    request.exceptionHandler(e -> connection.close());
                    request.resume();
                });
    }

    private static byte[] toJson(Object value) {
        try {
            return SettingsJson.STRICT.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
