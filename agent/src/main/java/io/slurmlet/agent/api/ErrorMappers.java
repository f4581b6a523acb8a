package io.slurmlet.agent.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson.BadJson;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Every error the API answers is JSON with a sentence a person can act on; input the API cannot
 * read is a 400, never a 500.
 */
public class ErrorMappers {

    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    @ServerExceptionMapper
    public Response badJson(BadJson e) {
        return Answers.error(400, ApiError.of(e.getMessage()));
    }

    @ServerExceptionMapper
    public Response unreadable(JsonProcessingException e) {
        return Answers.error(400, ApiError.of("the body is not valid JSON: " + e.getOriginalMessage()));
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        Response r = e.getResponse();
        int status = r.getStatus();
        String message = switch (status) {
            case 404 -> "no such resource: the API's paths are under /v1/slurm (see /q/openapi)";
            case 405 -> "this method is not allowed here (see /q/openapi)";
            case 406 -> "this API answers application/json only";
            case 415 -> "send the body as application/json (PATCH also takes application/merge-patch+json)";
            default -> e.getMessage();
        };
        if (status >= 500) {
            LOG.error("request failed", e);
        }
        return Answers.error(status, ApiError.of(message));
    }

    @ServerExceptionMapper
    public Response storage(StorageException e) {
        LOG.error("could not store a change", e);
        return Answers.error(
                500,
                ApiError.of(
                        "the leader could not store the change (%s); nothing was changed".formatted(e.getMessage())));
    }

    /**
     * Any other I/O failure is the request's: its body could not be read (a client gone). A body
     * Vert.x could not decode was answered already, by {@link BrokenBodies}: nothing more is written.
     */
    @ServerExceptionMapper
    public Response unreadableRequest(IOException e, HttpServerRequest http) {
        if (http.response().ended()) {
            return null;
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        LOG.infof("a request's body could not be read: %s", root.getMessage());
        return Answers.error(
                400,
                ApiError.of(
                        "the request's body could not be read (%s); nothing was changed".formatted(root.getMessage())));
    }

    @ServerExceptionMapper
    public Response unexpected(Exception e) {
        LOG.error("request failed", e);
        return Answers.error(
                500,
                ApiError.of("the leader failed to handle this request (%s); its log has the details"
                        .formatted(e.getClass().getSimpleName())));
    }
}
