package io.slurmlet.agent.api;

import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.JoinReply;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * How a machine joins, on the agents' channel: it fetches the cluster's CA ({@code GET
 * /v1/join/ca}), then sends its name with a join token ({@code POST /v1/join}) and is given a
 * credential of its own, which every later call of its shows ({@link AgentAuth}). The token is
 * checked before the body is read, and a body is a name; a name that has joined stays that
 * machine's until an admin removes it and allows it again.
 */
final class JoinRoutes {

    /** The channel's log lines keep the one category they always had. */
    private static final Logger LOG = Logger.getLogger(AgentChannel.class);

    private static final String TOKEN = "slurmlet.join-token";
    /** A join sends {"node": NAME}: a name is at most 63 characters. */
    static final int JOIN_BODY_BYTES = 4096;

    private final Pki pki;
    private final JoinTokens joinTokens;
    private final AgentCredentials credentials;

    JoinRoutes(Pki pki, JoinTokens joinTokens, AgentCredentials credentials) {
        this.pki = pki;
        this.joinTokens = joinTokens;
        this.credentials = credentials;
    }

    void routes(Router router) {
        router.get("/v1/join/ca")
                .handler(ctx -> ctx.response()
                        .putHeader("Content-Type", "application/x-pem-file")
                        .end(pki.caPem()));
        // (Routes of their own: Vert.x puts a body handler before any other on one route.)
        router.post("/v1/join").handler(this::checkJoinToken);
        router.post("/v1/join").handler(BodyHandler.create(false).setBodyLimit(JOIN_BODY_BYTES));
        router.post("/v1/join").blockingHandler(this::join, false);
    }

    private void checkJoinToken(RoutingContext ctx) {
        var token = Answers.bearer(ctx.request().getHeader("Authorization")).flatMap(joinTokens::match);
        if (token.isEmpty()) {
            LOG.infof(
                    "a join from %s was refused: no live join token",
                    ctx.request().remoteAddress());
            ChannelAnswers.refuseUnread(
                    ctx,
                    "the join token is missing, wrong, expired or revoked: run 'ctl slurm join-token' on the leader "
                            + "and use the line it prints");
            return;
        }
        ctx.put(TOKEN, token.get().id());
        ctx.next();
    }

    private void join(RoutingContext ctx) {
        Map<?, ?> body = SettingsJson.read(ChannelAnswers.bytes(ctx), Map.class);
        Object node = body.get("node");
        if (!(node instanceof String name)) {
            ChannelAnswers.error(ctx, 400, "a join names its machine: send {\"node\": \"NAME\"}");
            return;
        }
        var problem = SlurmSettings.nodeNameProblem("node", name);
        if (problem.isPresent()) {
            ChannelAnswers.error(
                    ctx,
                    400,
                    new ApiError("the join was refused: " + problem.get().message(), List.of(problem.get()), null));
            return;
        }
        try {
            // A name that has joined is that machine's: another one taking it would get its plan and
            // munge key and shut the real one out. A reinstalled machine is removed first, and a
            // removed one is refused until an admin allows its name again.
            var credential = credentials.issueUnlessJoined(name, ctx.get(TOKEN));
            if (credential.isEmpty()) {
                String taken = credentials.joinedAs(name).orElse(name);
                LOG.warnf(
                        "a join as %s from %s with join token %s was refused: %s has joined already",
                        name, ctx.request().remoteAddress(), ctx.get(TOKEN), taken);
                ChannelAnswers.error(
                        ctx,
                        409,
                        new ApiError(
                                ("%s has joined already: a second machine cannot take its name. If this is that "
                                                + "machine reinstalled, remove the old one on the leader and allow its name again first: "
                                                + "ctl slurm machines remove %s; ctl slurm machines allow %s")
                                        .formatted(taken, taken, taken),
                                List.of(new Problem("node", name, "node %s has joined already".formatted(name))),
                                null));
                return;
            }
            LOG.infof(
                    "%s joined from %s with join token %s", name, ctx.request().remoteAddress(), ctx.get(TOKEN));
            ChannelAnswers.json(ctx, 200, new JoinReply(name, credential.get()));
        } catch (AgentCredentials.NameRemoved e) {
            LOG.warnf(
                    "a join as %s from %s with join token %s was refused: %s was removed at %s by %s and is not allowed again",
                    name,
                    ctx.request().remoteAddress(),
                    ctx.get(TOKEN),
                    e.node(),
                    e.removal().removed(),
                    e.removal().by());
            ChannelAnswers.error(
                    ctx,
                    403,
                    new ApiError(
                            e.getMessage(),
                            List.of(new Problem(
                                    "node",
                                    name,
                                    "node %s was removed: ctl slurm machines allow %s lets it join again"
                                            .formatted(name, e.node()))),
                            null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
