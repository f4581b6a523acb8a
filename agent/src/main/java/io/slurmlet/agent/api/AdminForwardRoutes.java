package io.slurmlet.agent.api;

import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.agent.trust.StandbyCredential;
import io.slurmlet.model.text.Text;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jboss.logging.Logger;

/**
 * The leader's side of a standby handing an admin's request on ({@link StandbyForwarder}), on the
 * agents' channel under {@link #ADMIN_FORWARD}: the standby's client certificate is checked, then
 * the request goes into this leader's own admin API over its unix socket and its answer goes back
 * as it is. Only where standbys can be, on etcd: on the file store nothing hands requests on, and
 * the path is not served.
 */
final class AdminForwardRoutes implements AutoCloseable {

    /** The channel's log lines keep the one category they always had. */
    private static final Logger LOG = Logger.getLogger(AgentChannel.class);

    /** Where a standby hands an admin's request on: the path of the admin API follows. */
    private static final String ADMIN_FORWARD = LeaderChannel.ADMIN_FORWARD;
    /** On a request handed on into the leader's socket: the standby's address, for the leader's log. */
    static final String FORWARDED_FOR = "Slurmlet-Handed-On-From";
    /** The standby that handed a request on, as its certificate names it. */
    private static final String STANDBY = "slurmlet.standby";

    private final Pki pki;
    private final Path adminSocket;
    private final HttpClient admin;

    /** @param adminSocket this leader's admin API's unix socket; null where it serves none */
    AdminForwardRoutes(Vertx vertx, Pki pki, Path adminSocket) {
        this.pki = pki;
        this.adminSocket = adminSocket;
        this.admin =
                vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(8).setIdleTimeout(60));
    }

    void routes(Router router) {
        router.route(ADMIN_FORWARD + "/*").handler(this::checkStandby);
        router.route(ADMIN_FORWARD + "/*").handler(BodyHandler.create(false).setBodyLimit(StandbyForwarder.BODY_BYTES));
        router.route(ADMIN_FORWARD + "/*").handler(this::toAdminApi);
    }

    /**
     * A request handed on must come from a standby: a connection with a client certificate the
     * cluster's CA made for a standby ({@link StandbyCredential#standbyOf}). The admin token, which ctl users on
     * other machines hold too, opens nothing here.
     */
    private void checkStandby(RoutingContext ctx) {
        Optional<String> standby = Optional.empty();
        try {
            SSLSession session = ctx.request().sslSession();
            Certificate[] chain = session == null ? null : session.getPeerCertificates();
            if (chain != null && chain.length > 0 && chain[0] instanceof X509Certificate peer) {
                standby = StandbyCredential.standbyOf(peer, pki.ca());
            }
        } catch (SSLPeerUnverifiedException e) {
            // no certificate: not a standby
        }
        if (standby.isEmpty()) {
            LOG.infof(
                    "an admin request handed on from %s was refused: no standby's certificate of the cluster's CA",
                    ctx.request().remoteAddress());
            ChannelAnswers.refuseUnread(
                    ctx,
                    "only a standby hands admin requests on here, with a certificate of its own from the cluster's CA "
                            + "(it makes one from the CA it takes from etcd); run ctl on the leader, or on a standby");
            return;
        }
        ctx.put(STANDBY, standby.get());
        ctx.next();
    }

    /**
     * The request into this leader's own admin API, over its unix socket (root's: the standby's
     * certificate was checked above), and its answer back as it is.
     */
    private void toAdminApi(RoutingContext ctx) {
        // The path as the router matched it (dot segments resolved), so nothing but the admin API's /v1/ is reached.
        String path = ctx.normalizedPath();
        if (adminSocket == null) {
            ChannelAnswers.error(
                    ctx,
                    503,
                    "this leader serves no unix socket (quarkus.http.domain-socket-enabled=false), which requests handed on "
                            + "by a standby go to: enable it, or run ctl on the leader's machine");
            return;
        }
        String lower = path.toLowerCase(Locale.ROOT);
        if (!path.startsWith(ADMIN_FORWARD + "/v1/")
                || lower.contains("%2e")
                || lower.contains("%2f")
                || lower.contains("%5c")) {
            ChannelAnswers.error(ctx, 404, "no admin API path after " + ADMIN_FORWARD + ": " + Text.quote(path));
            return;
        }
        String query = ctx.request().query();
        String uri = path.substring(ADMIN_FORWARD.length()) + (query == null ? "" : "?" + query);
        RequestOptions options = new RequestOptions()
                .setMethod(ctx.request().method())
                .setServer(SocketAddress.domainSocketAddress(adminSocket.toString()))
                .setHost("localhost")
                .setPort(80)
                .setURI(uri)
                .setTimeout(60_000)
                // Who asked, for the leader's log (a socket request is root's otherwise): only this channel sets it
                // there.
                .putHeader(
                        FORWARDED_FOR,
                        "the standby " + ctx.<String>get(STANDBY) + " at "
                                + ctx.request().remoteAddress());
        for (String h : StandbyForwarder.HANDED_ON) {
            String v = ctx.request().getHeader(h);
            if (v != null) {
                options.putHeader(h, v);
            }
        }
        Buffer body = ctx.body().buffer() == null ? Buffer.buffer() : ctx.body().buffer();
        admin.request(options)
                .compose(request -> request.send(body))
                .compose(response -> response.body().map(answer -> {
                    var out = ctx.response().setStatusCode(response.statusCode());
                    for (String h : StandbyForwarder.HANDED_BACK) {
                        String v = response.getHeader(h);
                        if (v != null) {
                            out.putHeader(h, v);
                        }
                    }
                    out.end(answer);
                    return null;
                }))
                .onFailure(e -> {
                    LOG.warnf(
                            "an admin request handed on (%s %s) failed on this leader's own API: %s",
                            ctx.request().method(), uri, e.getMessage());
                    ChannelAnswers.error(
                            ctx, 503, "the leader could not answer the request handed on: " + e.getMessage());
                });
        LOG.infof(
                "%s %s handed on by the standby at %s, with the admin token",
                ctx.request().method(),
                path.substring(ADMIN_FORWARD.length()),
                ctx.request().remoteAddress());
    }

    @Override
    public void close() {
        admin.close();
    }
}
