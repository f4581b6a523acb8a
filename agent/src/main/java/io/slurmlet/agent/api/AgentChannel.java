package io.slurmlet.agent.api;

import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.OpenSsl;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.leader.ContainerFiles;
import io.slurmlet.agent.leader.FactsLimit;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.JoinReply;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.FactsCheck;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.PlanDigest;
import io.slurmlet.model.plan.PlanJson;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.text.Text;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SSLEngineOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jboss.logging.Logger;

/**
 * The leader's channel for agents: TLS only, with the leader's certificate from the cluster CA, on
 * its own port (7818), apart from the admin API. A machine joins with the join token and is given
 * its own credential; from then on it reports its facts, long-polls its plan (answered at once when
 * the leader has another revision, else held up to {@code slurmlet.node.poll-wait}) and posts what
 * each reconcile pass did. A plan, which holds the munge key, is served only to its own machine.
 */
public final class AgentChannel implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AgentChannel.class);
    private static final String BEARER = "Bearer ";
    private static final String NODE = "slurmlet.node";
    /** The credential a call presented, asked again where its write is made (never logged). */
    private static final String CREDENTIAL = "slurmlet.credential";

    private static final String TOKEN = "slurmlet.join-token";
    /** The standby that handed a request on, as its certificate names it. */
    private static final String STANDBY = "slurmlet.standby";

    private static final Duration LONGEST_POLL = Duration.ofSeconds(120);
    static final int MOST_RECONNECTS = 100_000;
    /** A join sends {"node": NAME}: a name is at most 63 characters. */
    static final int JOIN_BODY_BYTES = 4096;
    /** What a refused request may still send, read and dropped, before its connection is closed. */
    static final int LINGER_BYTES = 65_536;

    static final Duration LINGER = Duration.ofSeconds(2);

    private final Pki pki;
    private final JoinTokens joinTokens;
    private final AgentCredentials credentials;
    private final Inventory inventory;
    private final PlanPublisher plans;
    private final NodeReports reports;
    private final Duration pollWait;
    private final LendingEngine lending;
    private final ContainerFiles containerFiles;
    private final Path adminSocket;
    private HttpClient admin;
    private HttpServer server;
    private ConnectionLimits connections;
    private ContainerFileTransfers fileTransfers;
    /** slurmlet.leader.reconnect-rate: machines a second the leader takes back after it was away. */
    private int reconnectRate = 200;
    /** slurmlet.leader.facts-change-interval: how often a machine's facts may change. */
    private FactsLimit factsLimit = FactsLimit.NONE;
    /** Longer would keep a machine's real change (Slurm upgraded) out of the plans too long. */
    static final Duration LONGEST_FACTS_CHANGE_INTERVAL = Duration.ofHours(1);

    public AgentChannel(
            Pki pki,
            JoinTokens joinTokens,
            AgentCredentials credentials,
            Inventory inventory,
            PlanPublisher plans,
            NodeReports reports,
            Duration pollWait,
            LendingEngine lending,
            ContainerFiles containerFiles,
            Path adminSocket) {
        this.adminSocket = adminSocket;
        this.lending = lending;
        this.containerFiles = containerFiles;
        this.pki = pki;
        this.joinTokens = joinTokens;
        this.credentials = credentials;
        this.inventory = inventory;
        this.plans = plans;
        this.reports = reports;
        this.pollWait = pollWait;
    }

    /** Starts listening; returns the port (the configured one, or the one the kernel chose for 0). */
    public int start(Vertx vertx, AgentConfig config) throws Exception {
        reconnectRate = config.leader().reconnectRate();
        if (reconnectRate < 1 || reconnectRate > MOST_RECONNECTS) {
            throw new IllegalStateException(
                    ("slurmlet.leader.reconnect-rate is %d: give the machines a second this leader takes back "
                                    + "after it was away, 1 to %d (200, the default, spreads 10,000 machines over 50 s)")
                            .formatted(reconnectRate, MOST_RECONNECTS));
        }
        factsLimit = factsLimit(config.leader().factsChangeInterval());
        Router router = Router.router(vertx);
        // Nothing before the token or credential is checked costs memory: a body is read only after
        // it, and a join's body is a name.
        router.get("/v1/join/ca")
                .handler(ctx -> ctx.response()
                        .putHeader("Content-Type", "application/x-pem-file")
                        .end(pki.caPem()));
        // (Routes of their own: Vert.x puts a body handler before any other on one route.)
        router.post("/v1/join").handler(this::checkJoinToken);
        router.post("/v1/join").handler(BodyHandler.create(false).setBodyLimit(JOIN_BODY_BYTES));
        router.post("/v1/join").blockingHandler(this::join, false);
        // An admin's request a standby hands on (StandbyForwarder): the standby's certificate, then this leader's own
        // API.
        // Only where standbys can be, on etcd: on the file store nothing hands requests on, and the path is not served.
        boolean standbys = config.leader().store().kind() == AgentConfig.StoreConfig.Kind.ETCD;
        if (standbys) {
            router.route(ADMIN_FORWARD + "/*").handler(this::checkStandby);
            router.route(ADMIN_FORWARD + "/*")
                    .handler(BodyHandler.create(false).setBodyLimit(StandbyForwarder.BODY_BYTES));
            router.route(ADMIN_FORWARD + "/*").handler(this::toAdminApi);
        }
        admin = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(8).setIdleTimeout(60));
        router.route("/v1/agent/*").handler(this::authenticate);
        router.route("/v1/agent/*")
                .handler(BodyHandler.create(false).setBodyLimit(config.leader().maxBodyBytes()));
        router.put("/v1/agent/facts").blockingHandler(this::facts, false);
        router.get("/v1/agent/plan").handler(this::plan);
        router.put("/v1/agent/status").handler(this::status);
        fileTransfers = new ContainerFileTransfers(
                containerFiles, config.leader().containers().partTimeout());
        router.get(ArtifactTable.LEADER_FILES + ":sha256/:file").handler(this::containerFile);
        router.route()
                .last()
                .handler(ctx -> error(
                        ctx,
                        404,
                        "no %s %s on the agents' channel"
                                .formatted(ctx.request().method(), ctx.normalizedPath())));
        router.route().failureHandler(this::failure);
        HttpServerOptions options = new HttpServerOptions()
                .setHost(config.leader().agentHost())
                .setPort(config.leader().agentPort())
                .setSsl(true)
                .setKeyCertOptions(new PemKeyCertOptions()
                        .setCertPath(pki.leaderCertificateFile().toString())
                        .setKeyPath(pki.leaderKeyFile().toString()))
                .setSslHandshakeTimeout(config.leader().agentHeaderTimeout().toMillis())
                .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
                // Above the longest poll, so a held poll is never cut; a connection silent longer is closed.
                .setIdleTimeout((int) LONGEST_POLL.plusSeconds(30).toSeconds())
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                .setMaxInitialLineLength(4096)
                .setMaxHeaderSize(8192)
                .setMaxChunkSize(8192)
                .setCompressionSupported(false)
                .setDecompressionSupported(false);
        options.setSslEngineOptions(tlsEngine());
        if (standbys) {
            // A standby shows its own credential, a client certificate of the cluster's CA; agents show none (asked,
            // not required).
            options.setClientAuth(ClientAuth.REQUEST)
                    .setTrustOptions(
                            new PemTrustOptions().addCertPath(pki.caFile().toString()));
        }
        CIPHER_SUITES.forEach(options::addEnabledCipherSuite);
        connections = new ConnectionLimits(
                config.leader().agentConnectionsPerPeer(),
                config.leader().agentConnections(),
                config.leader().agentHeaderTimeout());
        server = connections.server(vertx, options).requestHandler(request -> {
            connections.requested(request);
            BrokenBodies.answer(request, false);
            router.handle(request);
        });
        server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        LOG.infof(
                "agents' channel on https://%s:%d, CA %s, TLS by %s",
                config.leader().agentHost(),
                server.actualPort(),
                pki.caHash(),
                options.getSslEngineOptions() instanceof OpenSSLEngineOptions ? "BoringSSL" : "the JDK");
        return server.actualPort();
    }

    static FactsLimit factsLimit(Duration interval) {
        if (interval.isNegative() || interval.compareTo(LONGEST_FACTS_CHANGE_INTERVAL) > 0) {
            throw new IllegalStateException(
                    ("slurmlet.leader.facts-change-interval is %d s: give how often a machine's facts may "
                                    + "change, 0s to 1h (10s, the default, takes 3 changes at once, then one every 10 s; 0s takes every change)")
                            .formatted(interval.toSeconds()));
        }
        return new FactsLimit(interval);
    }

    /**
     * The agents' channel's cipher suites, whichever engine: TLS 1.3's, and for TLS 1.2 forward-secret
     * AEAD suites for the leader's P-256 key only (Mozilla's "intermediate" list for an ECDSA
     * certificate); BoringSSL also took CBC suites by default, and its choices are not the JDK's
     * {@code jdk.tls.*} settings. Every client of the channel (the agents' JDK, Python's ssl) has these.
     */
    static final List<String> CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");

    /**
     * BoringSSL (netty-tcnative) where its library loads, else the JDK's TLS. At 10,000 agents the
     * JDK's engine encrypted into a new heap buffer at each write (a change's 130 MB of answers were
     * 630 MB of garbage, and the collector stopped the leader for it) and spent most of a restart's
     * CPU in handshakes; BoringSSL writes into the channel's pooled direct buffers.
     */
    static SSLEngineOptions tlsEngine() {
        if (OpenSSLEngineOptions.isAvailable()) {
            LOG.debugf("the agents' channel's TLS by BoringSSL (%s)", OpenSsl.versionString());
            return new OpenSSLEngineOptions().setSessionCacheEnabled(true);
        }
        LOG.infof(
                "the agents' channel's TLS by the JDK: BoringSSL does not load here (%s)",
                String.valueOf(OpenSsl.unavailabilityCause()));
        return new JdkSSLEngineOptions();
    }

    /** Where a standby hands an admin's request on: the path of the admin API follows. */
    public static final String ADMIN_FORWARD = LeaderChannel.ADMIN_FORWARD;
    /** On a request handed on into the leader's socket: the standby's address, for the leader's log. */
    public static final String FORWARDED_FOR = "Slurmlet-Handed-On-From";

    /**
     * A request handed on must come from a standby: a connection with a client certificate the
     * cluster's CA made for a standby ({@link io.slurmlet.agent.trust.Pki#standbyOf}). The admin
     * token, which ctl users on other machines hold too, opens nothing here.
     */
    private void checkStandby(RoutingContext ctx) {
        Optional<String> standby = Optional.empty();
        try {
            SSLSession session = ctx.request().sslSession();
            Certificate[] chain = session == null ? null : session.getPeerCertificates();
            if (chain != null && chain.length > 0 && chain[0] instanceof X509Certificate peer) {
                standby = Pki.standbyOf(peer, pki.ca());
            }
        } catch (SSLPeerUnverifiedException e) {
            // no certificate: not a standby
        }
        if (standby.isEmpty()) {
            LOG.infof(
                    "an admin request handed on from %s was refused: no standby's certificate of the cluster's CA",
                    ctx.request().remoteAddress());
            refuseUnread(
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
            error(
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
            error(ctx, 404, "no admin API path after " + ADMIN_FORWARD + ": " + Text.quote(path));
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
                    error(ctx, 503, "the leader could not answer the request handed on: " + e.getMessage());
                });
        LOG.infof(
                "%s %s handed on by the standby at %s, with the admin token",
                ctx.request().method(),
                path.substring(ADMIN_FORWARD.length()),
                ctx.request().remoteAddress());
    }

    private void checkJoinToken(RoutingContext ctx) {
        String header = ctx.request().getHeader("Authorization");
        var token = header != null && header.startsWith(BEARER)
                ? joinTokens.match(header.substring(BEARER.length()))
                : Optional.<JoinTokens.Entry>empty();
        if (token.isEmpty()) {
            LOG.infof(
                    "a join from %s was refused: no live join token",
                    ctx.request().remoteAddress());
            refuseUnread(
                    ctx,
                    "the join token is missing, wrong, expired or revoked: run 'ctl slurm join-token' on the leader "
                            + "and use the line it prints");
            return;
        }
        ctx.put(TOKEN, token.get().id());
        ctx.next();
    }

    /** 401 before the body is read: the connection is closed after the answer, so its body is never taken in. */
    private static void refuseUnread(RoutingContext ctx, String message) {
        closeAfter(ctx, 401, ApiError.of(message));
    }

    /**
     * Answers, then closes the connection: what is left of the request is never kept. Closing a
     * socket with unread bytes makes the kernel reset it, which can destroy the answer before the
     * client reads it; so the rest of the body is first read and dropped, up to
     * {@link #LINGER_BYTES} or {@link #LINGER}, as a web server's lingering close does.
     */
    private static void closeAfter(RoutingContext ctx, int status, ApiError error) {
        if (ctx.response().ended()) {
            return;
        }
        HttpServerRequest request = ctx.request();
        HttpConnection connection = request.connection();
        Vertx vertx = ctx.vertx();
        byte[] body;
        try {
            body = SettingsJson.STRICT.writeValueAsBytes(error);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    private void join(RoutingContext ctx) {
        Map<?, ?> body = SettingsJson.read(bytes(ctx), Map.class);
        Object node = body.get("node");
        if (!(node instanceof String name)) {
            error(ctx, 400, "a join names its machine: send {\"node\": \"NAME\"}");
            return;
        }
        var problem = SlurmSettings.nodeNameProblem("node", name);
        if (problem.isPresent()) {
            error(
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
                error(
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
            json(ctx, 200, new JoinReply(name, credential.get()));
        } catch (AgentCredentials.NameRemoved e) {
            LOG.warnf(
                    "a join as %s from %s with join token %s was refused: %s was removed at %s by %s and is not allowed again",
                    name,
                    ctx.request().remoteAddress(),
                    ctx.get(TOKEN),
                    e.node(),
                    e.removal().removed(),
                    e.removal().by());
            error(
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

    private void authenticate(RoutingContext ctx) {
        String header = ctx.request().getHeader("Authorization");
        var node = header != null && header.startsWith(BEARER)
                ? credentials.nodeOf(header.substring(BEARER.length()))
                : Optional.<String>empty();
        if (node.isEmpty()) {
            refuseUnread(
                    ctx,
                    "this machine's credential is missing or no longer valid: join it again with the line "
                            + "'ctl slurm join-token' prints on the leader");
            return;
        }
        ctx.put(NODE, node.get());
        ctx.put(CREDENTIAL, header.substring(BEARER.length()));
        ctx.next();
    }

    /**
     * Whether the machine that made this call still holds the credential it was let in with: asked
     * again where its report is written, under the lock a removal's forgetting takes, as the
     * credential may have been revoked since it was checked.
     */
    private BooleanSupplier stillJoined(RoutingContext ctx) {
        String node = ctx.get(NODE);
        String credential = ctx.get(CREDENTIAL);
        return () -> credentials.nodeOf(credential).filter(node::equals).isPresent();
    }

    /** The answer to a report whose machine was removed while it was on the way: nothing of it was kept. */
    private static void removedMeanwhile(RoutingContext ctx, String what) {
        String node = ctx.get(NODE);
        LOG.infof(
                "%s's %s was refused: its credential was revoked (the machine removed) while the report was on the way",
                node, what);
        error(
                ctx,
                401,
                ("this machine's credential was revoked while its %s was on the way (ctl slurm machines remove %s): nothing "
                                + "of it was kept; if it is to join again, an admin allows it on the leader first: ctl slurm machines allow %s")
                        .formatted(what, node, node));
    }

    private void facts(RoutingContext ctx) {
        String node = ctx.get(NODE);
        NodeFacts reported = SettingsJson.read(bytes(ctx), NodeFacts.class);
        List<Problem> problems = FactsCheck.problems(node, reported);
        if (!problems.isEmpty()) {
            error(ctx, 400, refusal(problems));
            return;
        }
        try {
            Inventory.Stored stored = inventory.report(named(node, reported), stillJoined(ctx), factsLimit);
            if (stored == Inventory.Stored.REFUSED) {
                removedMeanwhile(ctx, "facts report");
                return;
            }
            if (stored == Inventory.Stored.LIMITED) {
                changingTooOften(ctx, node);
                return;
            }
            json(ctx, 200, Map.of("node", node, "changed", stored == Inventory.Stored.CHANGED));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * 429 to a report that would change its machine's facts sooner than {@link #factsLimit} takes:
     * nothing of it kept; Retry-After says when its agent reports again, with its facts as they are then.
     */
    private void changingTooOften(RoutingContext ctx, String node) {
        Duration wait = factsLimit.refused(node);
        ctx.response().putHeader("Retry-After", Long.toString(FactsLimit.seconds(wait)));
        error(
                ctx,
                429,
                new ApiError(
                        ("%s's facts change more often than the leader takes them (%d changes at once, then one every "
                                        + "%s: slurmlet.leader.facts-change-interval): this report was not stored, and this machine reports its facts again "
                                        + "after Retry-After. If they keep changing, something on %s changes what it reports (its address, a package) back "
                                        + "and forth: a machine's facts change only when it is set up or changed")
                                .formatted(node, FactsLimit.BURST, factsLimit.every(), node),
                        List.of(new Problem(
                                "facts",
                                node,
                                "changed more often than one every %s after %d at once"
                                        .formatted(factsLimit.every(), FactsLimit.BURST))),
                        null));
    }

    private void plan(RoutingContext ctx) {
        String node = ctx.get(NODE);
        long held;
        Duration wait;
        try {
            held = Long.parseLong(ctx.request().getParam("after", "0"));
            wait = Duration.ofSeconds(
                    Long.parseLong(ctx.request().getParam("wait", Long.toString(pollWait.toSeconds()))));
        } catch (NumberFormatException e) {
            error(ctx, 400, "after and wait are whole numbers: the plan revision held, and seconds to wait");
            return;
        }
        if (wait.compareTo(LONGEST_POLL) > 0 || wait.isNegative()) {
            wait = LONGEST_POLL;
        }
        String digest = ctx.request().getParam("digest");
        if (digest != null && !PlanDigest.FORM.matcher(digest).matches()) {
            error(
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
                json(ctx, 200, answer.json()).onComplete(sent -> answer.written(sent.succeeded()));
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

    private static final String RECONNECT_WINDOW = LeaderChannel.RECONNECT_WINDOW;

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

    private void status(RoutingContext ctx) {
        String node = ctx.get(NODE);
        NodeReport report = SettingsJson.read(bytes(ctx), NodeReport.class);
        // What a machine reports is shown by ctl and logged: each text one line, as a terminal shows it.
        boolean kept = reports.put(
                new NodeReport(
                        node,
                        report.planRevision(),
                        report.steps().stream()
                                .map(st -> new StepStatus(
                                        Text.oneLine(st.step()),
                                        Text.oneLine(st.state()),
                                        Text.oneLine(st.detail()),
                                        Text.oneLine(st.at()),
                                        Text.oneLine(st.lastError()),
                                        Text.oneLine(st.lastErrorAt())))
                                .toList(),
                        report.slurmNodes().stream()
                                .map(n -> new SlurmNodeState(
                                        Text.oneLine(n.name()),
                                        Text.oneLine(n.state()),
                                        Text.oneLine(n.reason()),
                                        n.jobs().stream().map(Text::oneLine).toList()))
                                .toList(),
                        report.observed()),
                stillJoined(ctx));
        if (!kept) {
            removedMeanwhile(ctx, "status report");
            return;
        }
        if (!report.slurmNodes().isEmpty()) {
            lending.wake();
        }
        json(ctx, 200, Map.of("node", node));
    }

    /**
     * A file of jobs in containers the leader holds (its plan names it), to the machine that asked:
     * one at a time to each machine, a few at a time in all, cut where the machine stops taking it
     * ({@link ContainerFileTransfers}). The machine checks the digest before it installs.
     */
    private void containerFile(RoutingContext ctx) {
        fileTransfers.serve(ctx, ctx.get(NODE));
    }

    private void failure(RoutingContext ctx) {
        Throwable cause = ctx.failure();
        if (ctx.response().ended()) {
            // Answered already: a body that could not be decoded (BrokenBodies), a client gone.
            LOG.debugf("%s %s ended after its answer: %s", ctx.request().method(), ctx.normalizedPath(), cause);
            return;
        }
        if (cause instanceof SettingsJson.BadJson bad) {
            error(ctx, 400, bad.getMessage());
        } else if (ctx.statusCode() == 413) {
            closeAfter(
                    ctx,
                    400,
                    ApiError.of(
                            ctx.normalizedPath().equals("/v1/join")
                                    ? "a join's body is {\"node\": \"NAME\"}, not more than %d bytes"
                                            .formatted(JOIN_BODY_BYTES)
                                    : "the request body is larger than slurmlet.leader.max-body-bytes allows"));
        } else {
            LOG.errorf(
                    cause, "the agents' channel failed on %s %s", ctx.request().method(), ctx.normalizedPath());
            error(ctx, 500, "the leader failed to answer: its log says why");
        }
    }

    static ApiError refusal(List<Problem> problems) {
        return new ApiError(
                "the facts were not stored: %d problem%s".formatted(problems.size(), problems.size() == 1 ? "" : "s"),
                problems,
                null);
    }

    /** {@code reported} under the name of the machine that sent it. */
    static NodeFacts named(String node, NodeFacts reported) {
        return reported.withName(node);
    }

    private static byte[] bytes(RoutingContext ctx) {
        return ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
    }

    static void error(RoutingContext ctx, int status, String message) {
        error(ctx, status, ApiError.of(message));
    }

    private static void error(RoutingContext ctx, int status, ApiError error) {
        json(ctx, status, error);
    }

    private static void json(RoutingContext ctx, int status, Object value) {
        if (ctx.response().ended()) {
            return;
        }
        try {
            json(ctx, status, SettingsJson.STRICT.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code json}, already JSON. */
    private static void json(RoutingContext ctx, int status, byte[] json) {
        if (!ctx.response().ended()) {
            ctx.response()
                    .setStatusCode(status)
                    .putHeader("Content-Type", "application/json")
                    .end(Buffer.buffer(json));
        }
    }

    /**
     * A plan's answer, made once for every poll waiting for it, sent from its pieces as they are: the
     * texts every plan carries alike are not copied into each answer.
     */
    private static Future<Void> json(RoutingContext ctx, int status, PlanJson json) {
        if (ctx.response().ended()) {
            return Future.failedFuture("answered already");
        }
        return ctx.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .end(Buffer.buffer(Unpooled.wrappedBuffer(json.parts().toArray(byte[][]::new))));
    }

    /**
     * Closes the port and every agent's connection, waiting up to 5 s for it while the event loops
     * still run: a close left to finish as Vert.x stops logged an error for every connection whose
     * close was under way (10,000 at a large site, at each restart).
     */
    @Override
    public void close() {
        if (server != null) {
            try {
                server.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debugf(
                        "the agents' channel did not close within 5 s (%s): Vert.x closes what is left", e.toString());
            }
        }
        if (admin != null) {
            admin.close();
        }
    }
}
