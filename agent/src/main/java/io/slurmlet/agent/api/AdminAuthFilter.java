package io.slurmlet.agent.api;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.LeaderStartup;
import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.trust.TokenFile;
import io.slurmlet.model.api.ApiError;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.inject.Instance;
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
    Instance<TokenFile> token;

    @Inject
    Instance<Leadership> leadership;

    @Inject
    LeaderStartup startup;

    @Inject
    AgentConfig config;

    @ServerRequestFilter(preMatching = true)
    public Response authenticate(ContainerRequestContext request, HttpServerRequest http) {
        String path = request.getUriInfo().getPath();
        if (!path.startsWith("/v1/") && !path.equals("/v1")) {
            return null;
        }
        if (!config.isLeader()) {
            return error(
                    Response.Status.NOT_FOUND,
                    "this agent is not the leader: run ctl against the leader's address (--leader)");
        }
        if (!startup.serving()) {
            // Leader-eligible and standing by (or elected a moment ago, still opening): the admin token is the
            // cluster's, not yet this machine's.
            String why = leadership.get().leads()
                    ? "this agent was just elected and is opening the cluster's state: try again in a second"
                    : leadership
                            .get()
                            .leader()
                            .map(l -> "this agent stands by: the leader is " + l
                                    + "; run ctl against the leader (--leader, or on its machine)")
                            .orElse(
                                    "this agent stands by and no agent leads the cluster yet (the election runs in etcd): try again in a few seconds");
            return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .header(HttpHeaders.RETRY_AFTER, "1")
                    .type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(ApiError.of(why))
                    .build();
        }
        if (http.localAddress() != null && http.localAddress().isDomainSocket()) {
            return null;
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || header.isBlank()) {
            return unauthorized("no admin token: send \"Authorization: Bearer TOKEN\" with the token from the "
                    + "leader's " + token.get().file() + ", or use ctl on the leader's machine");
        }
        if (!header.startsWith(BEARER) || !token.get().matches(header.substring(BEARER.length()))) {
            return unauthorized("the admin token is wrong: copy it again from the leader's "
                    + token.get().file());
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
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(ApiError.of(message))
                .build();
    }
}
