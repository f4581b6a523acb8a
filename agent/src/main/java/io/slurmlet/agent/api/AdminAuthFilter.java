package io.slurmlet.agent.api;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.trust.TokenFile;
import io.slurmlet.model.api.ApiError;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every /v1 call needs the admin token, except one that comes over the leader's unix socket: only
 * root reaches that socket, and root can read the token anyway.
 */
public class AdminAuthFilter {

    private static final String BEARER = "Bearer ";

    @Inject
    TokenFile token;

    @Inject
    AgentConfig config;

    @ServerRequestFilter(preMatching = true)
    public Response authenticate(ContainerRequestContext request, HttpServerRequest http) {
        String path = request.getUriInfo().getPath();
        if (!path.startsWith("/v1/") && !path.equals("/v1")) {
            return null;
        }
        if (!config.isLeader()) {
            return error(Response.Status.NOT_FOUND,
                    "this agent is not the leader: run ctl against the leader's address (--leader)");
        }
        if (http.localAddress() != null && http.localAddress().isDomainSocket()) {
            return null;
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || header.isBlank()) {
            return unauthorized("no admin token: send \"Authorization: Bearer TOKEN\" with the token from the "
                    + "leader's " + token.file() + ", or use ctl on the leader's machine");
        }
        if (!header.startsWith(BEARER) || !token.matches(header.substring(BEARER.length()))) {
            return unauthorized("the admin token is wrong: copy it again from the leader's " + token.file());
        }
        return null;
    }

    private static Response unauthorized(String message) {
        return Response.status(Response.Status.UNAUTHORIZED)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"slurmlet\"")
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(ApiError.of(message))
                .build();
    }

    private static Response error(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(ApiError.of(message)).build();
    }
}
