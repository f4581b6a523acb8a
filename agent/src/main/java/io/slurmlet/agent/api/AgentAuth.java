package io.slurmlet.agent.api;

import io.slurmlet.agent.trust.AgentCredentials;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Who is calling under {@code /v1/agent/} on the agents' channel: a joined machine, by the credential
 * it was given when it joined, checked before its body is read (a body is read only after it, up to
 * {@code slurmlet.leader.max-body-bytes}). The routes after it take the machine's name from here, and
 * ask again whether it still holds that credential where they write what it reported.
 */
final class AgentAuth {

    /** The channel's log lines keep the one category they always had. */
    private static final Logger LOG = Logger.getLogger(AgentChannel.class);

    private static final String NODE = "slurmlet.node";
    /** The credential a call presented, asked again where its write is made (never logged). */
    private static final String CREDENTIAL = "slurmlet.credential";

    private final AgentCredentials credentials;

    AgentAuth(AgentCredentials credentials) {
        this.credentials = credentials;
    }

    /** The credential's check and the body's limit, ahead of every route under {@code /v1/agent/}. */
    void guard(Router router, int maxBodyBytes) {
        router.route("/v1/agent/*").handler(this::authenticate);
        router.route("/v1/agent/*").handler(BodyHandler.create(false).setBodyLimit(maxBodyBytes));
    }

    private void authenticate(RoutingContext ctx) {
        String header = ctx.request().getHeader("Authorization");
        var credential = Answers.bearer(header);
        var node = credential.flatMap(credentials::nodeOf);
        if (node.isEmpty()) {
            ChannelAnswers.refuseUnread(
                    ctx,
                    "this machine's credential is missing or no longer valid: join it again with the line "
                            + "'ctl slurm join-token' prints on the leader");
            return;
        }
        ctx.put(NODE, node.get());
        ctx.put(CREDENTIAL, credential.get());
        ctx.next();
    }

    /** The machine whose credential this call presented. */
    static String node(RoutingContext ctx) {
        return ctx.get(NODE);
    }

    /**
     * Whether the machine that made this call still holds the credential it was let in with: asked
     * again where its report is written, under the lock a removal's forgetting takes, as the
     * credential may have been revoked since it was checked.
     */
    BooleanSupplier stillJoined(RoutingContext ctx) {
        String node = ctx.get(NODE);
        String credential = ctx.get(CREDENTIAL);
        return () -> credentials.nodeOf(credential).filter(node::equals).isPresent();
    }

    /** The answer to a report whose machine was removed while it was on the way: nothing of it was kept. */
    static void removedMeanwhile(RoutingContext ctx, String what) {
        String node = ctx.get(NODE);
        LOG.infof(
                "%s's %s was refused: its credential was revoked (the machine removed) while the report was on the way",
                node, what);
        ChannelAnswers.error(
                ctx,
                401,
                ("this machine's credential was revoked while its %s was on the way (ctl slurm machines remove %s): nothing "
                                + "of it was kept; if it is to join again, an admin allows it on the leader first: ctl slurm machines allow %s")
                        .formatted(what, node, node));
    }
}
