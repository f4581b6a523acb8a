package io.slurmlet.agent.api;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.text.Text;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * A request whose body cannot be decoded (a chunk size that is not hexadecimal, a chunk cut
 * short) gets a 400 that says so before its connection is closed. Vert.x fails the connection
 * when its decoder meets such a body, and closes it right after telling the connection's
 * exception handler: only an answer written there, on the event loop, reaches the client; the
 * route that would have read the body learns of the failure after the connection is gone. (Vert.x
 * 4.5 has no public way to flush there: {@link ConnectionBase#flush()} is its own.)
 */
@ApplicationScoped
public class BrokenBodies {

    private static final Logger LOG = Logger.getLogger(BrokenBodies.class);

    /** The admin API's routes (TCP and the socket): before every other route. */
    void adminApi(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(ctx -> {
            answer(ctx.request(), true);
            ctx.next();
        });
    }

    /**
     * Until {@code request} is read whole, a failure of its connection is answered with a 400.
     *
     * @param logged whether the failure is logged (INFO): the admin API's, on loopback and the socket;
     *               not the agents' channel's, where anyone on the network can send broken bodies
     */
    public static void answer(HttpServerRequest request, boolean logged) {
        request.connection().exceptionHandler(failure -> {
            HttpServerResponse response = request.response();
            if (request.isEnded() || response.headWritten() || response.ended() || response.closed()) {
                return;
            }
            String why = Text.oneLine(
                    failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage());
            LOG.logf(
                    logged ? Logger.Level.INFO : Logger.Level.DEBUG,
                    "the body of %s %s from %s could not be read: %s",
                    request.method(),
                    Text.oneLine(request.path()),
                    request.remoteAddress(),
                    why);
            try {
                response.setStatusCode(400)
                        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .putHeader(HttpHeaders.CONNECTION, "close")
                        .end(Buffer.buffer(
                                SettingsJson.pretty(ApiError.of(("the request's body could not be read (%s): send "
                                                + "it whole, with a Content-Length or valid chunks; nothing was changed")
                                        .formatted(why)))));
                // Vert.x holds writes made while it reads until the read ends, and the connection is
                // closed before that: the answer is flushed now, or it is dropped with the connection.
                if (request.connection() instanceof ConnectionBase connection) {
                    connection.flush();
                }
            } catch (RuntimeException e) {
                LOG.debugf("the 400 for a broken body could not be written: %s", e.getMessage());
            }
        });
    }
}
