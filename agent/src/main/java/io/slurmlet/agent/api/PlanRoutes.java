package io.slurmlet.agent.api;

import io.netty.buffer.Unpooled;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.model.plan.PlanDigest;
import io.slurmlet.model.plan.PlanJson;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * A joined machine's long poll for its plan on the agents' channel ({@code GET /v1/agent/plan}):
 * answered at once when the leader has another revision than the one the machine holds, else held
 * up to {@code slurmlet.node.poll-wait} and answered 204. A plan, which holds the munge key, is
 * served only to its own machine. Each answer tells the machine the window its reconnection spreads
 * over should it lose this leader ({@code slurmlet.leader.reconnect-rate}).
 */
final class PlanRoutes {

    /** The channel's log lines keep the one category they always had. */
    private static final Logger LOG = Logger.getLogger(AgentChannel.class);

    private static final String RECONNECT_WINDOW = LeaderChannel.RECONNECT_WINDOW;
    static final Duration LONGEST_POLL = Duration.ofSeconds(120);
    private static final int MOST_RECONNECTS = 100_000;

    private final PlanPublisher plans;
    private final AgentCredentials credentials;
    private final Duration pollWait;
    /** slurmlet.leader.reconnect-rate: machines a second the leader takes back after it was away. */
    private final int reconnectRate;

    /**
     * @param pollWait how long a poll is held when it does not say ({@code slurmlet.node.poll-wait})
     * @param reconnectRate {@code slurmlet.leader.reconnect-rate}, refused outside 1 to {@link #MOST_RECONNECTS}
     */
    PlanRoutes(PlanPublisher plans, AgentCredentials credentials, Duration pollWait, int reconnectRate) {
        if (reconnectRate < 1 || reconnectRate > MOST_RECONNECTS) {
            throw new IllegalStateException(
                    ("slurmlet.leader.reconnect-rate is %d: give the machines a second this leader takes back "
                                    + "after it was away, 1 to %d (200, the default, spreads 10,000 machines over 50 s)")
                            .formatted(reconnectRate, MOST_RECONNECTS));
        }
        this.plans = plans;
        this.credentials = credentials;
        this.pollWait = pollWait;
        this.reconnectRate = reconnectRate;
    }

    void routes(Router router) {
        router.get("/v1/agent/plan").handler(this::plan);
    }

    private void plan(RoutingContext ctx) {
        String node = AgentAuth.node(ctx);
        long held;
        Duration wait;
        try {
            held = Long.parseLong(ctx.request().getParam("after", "0"));
            wait = Duration.ofSeconds(
                    Long.parseLong(ctx.request().getParam("wait", Long.toString(pollWait.toSeconds()))));
        } catch (NumberFormatException e) {
            ChannelAnswers.error(
                    ctx, 400, "after and wait are whole numbers: the plan revision held, and seconds to wait");
            return;
        }
        if (wait.compareTo(LONGEST_POLL) > 0 || wait.isNegative()) {
            wait = LONGEST_POLL;
        }
        String digest = ctx.request().getParam("digest");
        if (digest != null && !PlanDigest.FORM.matcher(digest).matches()) {
            ChannelAnswers.error(
                    ctx,
                    400,
                    "digest is the sha256 of the plan held, 64 lower-case hex digits; leave it out to be sent the plan again");
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        Vertx vertx = ctx.vertx();
        long[] timer = {-1};
        Runnable cancel = plans.book().whenNewer(node, held, digest, answer -> {
            if (!answered.compareAndSet(false, true)) {
                answer.written(false);
                return;
            }
            if (timer[0] >= 0) {
                vertx.cancelTimer(timer[0]);
            }
            if (ctx.response().ended()) {
                answer.written(false);
                return;
            }
            try {
                ctx.response().putHeader(RECONNECT_WINDOW, reconnectWindow());
                json(ctx, answer.json()).onComplete(sent -> answer.written(sent.succeeded()));
            } catch (RuntimeException e) {
                // The connection closed meanwhile, on its event loop: the machine polls again when it connects.
                answer.written(false);
                LOG.debugf("the plan's answer to %s was not written: %s", node, e.toString());
            }
        });
        if (answered.get()) {
            return;
        }
        timer[0] = vertx.setTimer(Math.max(1, wait.toMillis()), t -> {
            if (answered.compareAndSet(false, true)) {
                cancel.run();
                ctx.response()
                        .setStatusCode(204)
                        .putHeader(RECONNECT_WINDOW, reconnectWindow())
                        .end();
            }
        });
        // The response's, not the connection's: ConnectionLimits holds the connection's close handler.
        ctx.response().closeHandler(v -> {
            if (answered.compareAndSet(false, true)) {
                vertx.cancelTimer(timer[0]);
                cancel.run();
            }
        });
    }

    /**
     * Whole seconds the machines' reconnections spread over when they lost this leader: the
     * machines joined at {@code slurmlet.leader.reconnect-rate} a second, at least one.
     */
    String reconnectWindow() {
        return Long.toString(reconnectWindow(credentials.count(), reconnectRate));
    }

    static long reconnectWindow(int machines, int rate) {
        return Math.max(1, (machines + rate - 1) / rate);
    }

    /**
     * A plan's answer, made once for every poll waiting for it, sent from its pieces as they are: the
     * texts every plan carries alike are not copied into each answer.
     */
    private static Future<Void> json(RoutingContext ctx, PlanJson json) {
        if (ctx.response().ended()) {
            return Future.failedFuture("answered already");
        }
        return ctx.response()
                .setStatusCode(200)
                .putHeader("Content-Type", "application/json")
                .end(Buffer.buffer(Unpooled.wrappedBuffer(json.parts().toArray(byte[][]::new))));
    }
}
