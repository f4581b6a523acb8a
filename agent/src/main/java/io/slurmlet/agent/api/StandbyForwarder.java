package io.slurmlet.agent.api;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.LeaderStartup;
import io.slurmlet.agent.store.EtcdElection;
import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.LeaderRole;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.jboss.logging.Logger;

/**
 * A leader-eligible agent that stands by hands every admin request it gets to the agent that
 * leads, so ctl works on any of them: over the leader's agents' channel (TLS to the cluster's CA,
 * {@link LeaderChannel#ADMIN_FORWARD}), showing a credential of this standby's own, a client
 * certificate it makes with the CA's key; the CA is taken from etcd, where the first leader sealed it. What the leader answers is answered, with {@value #FORWARDED_BY}
 * and {@value #LEADER} naming the two. A request over this machine's unix socket is root's and is
 * handed on as it is; one over TCP only with the cluster's admin token (a standby is no open door
 * to the leader). Where no leader is known yet, or its secrets are not in etcd yet, the request
 * goes on to the API, which says the agent stands by.
 */
@ApplicationScoped
public class StandbyForwarder {

    /** The answer's header naming the standby that handed the request on. */
    public static final String FORWARDED_BY = "Slurmlet-Forwarded-By";
    /** The answer's header naming the leader that answered. */
    public static final String LEADER = "Slurmlet-Leader";
    /** The request headers handed on: what the API reads of a request besides its body. */
    static final List<String> HANDED_ON = List.of("Content-Type", "Accept", "If-Match");
    /** The answer headers handed back. */
    static final List<String> HANDED_BACK = List.of("Content-Type", "ETag", "Retry-After", "WWW-Authenticate");

    static final int BODY_BYTES = 8 << 20;
    private static final Logger LOG = Logger.getLogger(StandbyForwarder.class);

    @Inject
    AgentConfig config;

    @Inject
    LeaderStartup startup;

    @Inject
    Instance<Leadership> leadership;

    @Inject
    Vertx vertx;

    /**
     * The cluster's CA and admin token, and a client that trusts that CA and shows this standby's own
     * credential (a certificate the CA makes for it, {@link #CREDENTIAL_LIFE}), made again before it ends.
     */
    private record Keys(LeaderRole.ClusterKeys keys, HttpClient client, Instant renew) {}

    /** How long a standby's credential for handing requests on is valid; made again an hour before its end. */
    static final Duration CREDENTIAL_LIFE = Duration.ofDays(1);

    private volatile Keys keys;

    void routes(@Observes Router router) {
        if (!config.isLeader()) {
            return;
        }
        // Before the REST API's own route, and its filter that answers 503 on a standby.
        router.route("/v1/*").order(-100).handler(this::maybeForward);
    }

    private void maybeForward(RoutingContext ctx) {
        // Not its own record: an agent started again right after it lost the lead may still read it until the lease
        // lapses.
        String self = config.node().machineName();
        Optional<EtcdElection.Record> leader =
                leadership.get() instanceof EtcdElection election && !startup.serving() && !election.leads()
                        ? election.seenOther(self)
                        : Optional.empty();
        if (leader.isEmpty()) {
            ctx.next();
            return;
        }
        ctx.request().pause();
        vertx.executeBlocking(this::keys, false).onComplete(found -> {
            if (found.failed() || found.result() == null) {
                if (found.failed()) {
                    LOG.warnf(
                            "cannot read the cluster's secrets to hand a request to the leader: %s",
                            found.cause().getMessage());
                }
                ctx.request().resume();
                ctx.next(); // the API says this agent stands by
                return;
            }
            Keys k = found.result();
            boolean socket = ctx.request().localAddress() != null
                    && ctx.request().localAddress().isDomainSocket();
            if (!socket
                    && !bearerMatches(
                            ctx.request().getHeader("Authorization"), k.keys().adminToken())) {
                ctx.request().resume();
                ctx.next(); // without the cluster's token: nothing is handed on, the API answers
                return;
            }
            forward(ctx, leader.get(), k);
        });
    }

    private synchronized Keys keys() throws IOException {
        Keys now = keys;
        if (now != null && Instant.now().isBefore(now.renew())) {
            return now;
        }
        Optional<LeaderRole.ClusterKeys> found = startup.clusterKeys();
        if (found.isEmpty()) {
            return null;
        }
        var own = found.get().standby(config.node().machineName(), CREDENTIAL_LIFE);
        HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                .setSsl(true)
                .setTrustOptions(new PemTrustOptions()
                        .addCertValue(Buffer.buffer(found.get().caPem())))
                .setKeyCertOptions(new PemKeyCertOptions()
                        .addKeyValue(Buffer.buffer(own.keyPem()))
                        .addCertValue(Buffer.buffer(own.certificatePem())))
                .setConnectTimeout(5_000)
                .setIdleTimeout(60)
                .setMaxPoolSize(8));
        if (now != null) {
            now.client().close();
        }
        keys = new Keys(
                found.get(), client, own.certificate().getNotAfter().toInstant().minus(Duration.ofHours(1)));
        return keys;
    }

    private static boolean bearerMatches(String header, String token) {
        return Answers.bearer(header)
                .filter(sent -> MessageDigest.isEqual(
                        sent.strip().getBytes(StandardCharsets.US_ASCII), token.getBytes(StandardCharsets.US_ASCII)))
                .isPresent();
    }

    /** A body over {@link #BODY_BYTES}: refused here, not handed on. */
    private static final class TooLarge extends RuntimeException {
        TooLarge(long bytes) {
            super("the body is %d bytes, over the %d a standby hands on".formatted(bytes, BODY_BYTES));
        }
    }

    private void forward(RoutingContext ctx, EtcdElection.Record leader, Keys k) {
        String self = config.node().machineName();
        try {
            URI base = URI.create(leader.agents());
            if (base.getPort() <= 0) {
                answer(
                        ctx,
                        503,
                        self,
                        ("this agent stands by, and the leader %s's record names no port for its agents' channel (%s): "
                                        + "set slurmlet.leader.agent-port (7818) on every leader-eligible agent")
                                .formatted(leader.name(), leader.agents()));
                return;
            }
            if (ctx.request().isEnded() && !ctx.body().available()) {
                answer(
                        ctx,
                        503,
                        self,
                        "this agent stands by and lost the request's body before handing it to the leader "
                                + leader.name() + ": send it again");
                return;
            }
            String query = ctx.request().query();
            RequestOptions options = new RequestOptions()
                    .setMethod(ctx.request().method())
                    .setHost(base.getHost())
                    .setPort(base.getPort())
                    .setSsl(true)
                    .setURI(LeaderChannel.ADMIN_FORWARD + ctx.normalizedPath() + (query == null ? "" : "?" + query))
                    .setTimeout(60_000);
            for (String h : HANDED_ON) {
                String v = ctx.request().getHeader(h);
                if (v != null) {
                    options.putHeader(h, v);
                }
            }
            Future<Buffer> read = ctx.body().available()
                    ? Future.succeededFuture(
                            ctx.body().buffer() == null
                                    ? Buffer.buffer()
                                    : ctx.body().buffer())
                    : ctx.request().body();
            read.compose(body -> {
                        if (body.length() > BODY_BYTES) {
                            return Future.failedFuture(new TooLarge(body.length()));
                        }
                        return k.client()
                                .request(options)
                                .compose(request -> request.send(body))
                                .compose(response -> response.body().map(answer -> {
                                    var out = ctx.response().setStatusCode(response.statusCode());
                                    for (String h : HANDED_BACK) {
                                        String v = response.getHeader(h);
                                        if (v != null) {
                                            out.putHeader(h, v);
                                        }
                                    }
                                    if (response.statusCode() == 401) {
                                        keys = null; // the leader took not this credential: read the secrets and make
                                        // it again next time
                                    }
                                    out.putHeader(FORWARDED_BY, self).putHeader(LEADER, leader.name());
                                    out.end(answer);
                                    return null;
                                }));
                    })
                    .onFailure(e -> failed(ctx, leader, self, e));
            ctx.request().resume();
        } catch (RuntimeException e) {
            ctx.request().resume();
            failed(ctx, leader, self, e);
        }
    }

    private void failed(RoutingContext ctx, EtcdElection.Record leader, String self, Throwable e) {
        if (ctx.response().ended()) {
            return;
        }
        String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        LOG.infof(
                "handing %s %s to the leader %s failed: %s", ctx.request().method(), ctx.normalizedPath(), leader, why);
        if (e instanceof TooLarge) {
            answer(ctx, 413, self, why + ": nothing was handed to the leader " + leader.name());
        } else if (e instanceof SSLException || e.getCause() instanceof SSLException) {
            keys = null;
            answer(
                    ctx,
                    503,
                    self,
                    ("this agent stands by, and TLS with the leader %s (%s) failed (%s): its certificate is not the "
                                    + "cluster CA's that etcd holds; is it of this cluster?")
                            .formatted(leader.name(), leader.agents(), why));
        } else {
            answer(
                    ctx,
                    503,
                    self,
                    ("this agent stands by and hands requests to the leader %s (%s), which did not answer (%s): try "
                                    + "again in a few seconds; another agent leads once its lease lapses")
                            .formatted(leader.name(), leader.agents(), why));
        }
    }

    private static void answer(RoutingContext ctx, int status, String self, String message) {
        try {
            ctx.response()
                    .setStatusCode(status)
                    .putHeader("Retry-After", "1")
                    .putHeader("Content-Type", "application/json")
                    .putHeader(FORWARDED_BY, self)
                    .end(Buffer.buffer(SettingsJson.STRICT.writeValueAsBytes(ApiError.of(message))));
        } catch (IOException json) {
            ctx.response().setStatusCode(status).end();
        }
    }
}
