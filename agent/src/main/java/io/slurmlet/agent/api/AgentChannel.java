package io.slurmlet.agent.api;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.ContainerFiles;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The leader's channel for agents: TLS only, with the leader's certificate from the cluster CA, on
 * its own port (7818), apart from the admin API. A machine joins with the join token and is given
 * its own credential ({@link JoinRoutes}); from then on ({@link AgentAuth}) it reports its facts and
 * posts what each reconcile pass did ({@link ReportRoutes}), long-polls its plan ({@link PlanRoutes})
 * and fetches the container files its plan names ({@link ContainerFileTransfers}); on etcd a standby
 * hands admin requests on here ({@link AdminForwardRoutes}). This class holds the server: its
 * options ({@link ChannelTls}), the limits every connection has before anything on it is read
 * ({@link ConnectionLimits}), the routes in their order, and the answer to a route that failed.
 */
public final class AgentChannel implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AgentChannel.class);

    private final Pki pki;
    private final JoinTokens joinTokens;
    private final AgentCredentials credentials;
    private final Inventory inventory;
    private final PlanPublisher plans;
    private final NodeReports reports;
    private final LendingEngine lending;
    private final ContainerFiles containerFiles;
    private final Path adminSocket;
    private HttpServer server;
    private AdminForwardRoutes forward;

    private AgentChannel(Builder parts) {
        this.pki = Objects.requireNonNull(parts.pki, "pki");
        this.joinTokens = Objects.requireNonNull(parts.joinTokens, "joinTokens");
        this.credentials = Objects.requireNonNull(parts.credentials, "credentials");
        this.inventory = Objects.requireNonNull(parts.inventory, "inventory");
        this.plans = Objects.requireNonNull(parts.plans, "plans");
        this.reports = Objects.requireNonNull(parts.reports, "reports");
        this.lending = Objects.requireNonNull(parts.lending, "lending");
        this.containerFiles = Objects.requireNonNull(parts.containerFiles, "containerFiles");
        this.adminSocket = parts.adminSocket;
    }

    /** The leader's state the channel answers from, each piece by its name. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts listening; returns the port (the configured one, or the one the kernel chose for 0). */
    public int start(Vertx vertx, AgentConfig config) throws Exception {
        AgentConfig.Leader leader = config.leader();
        // The settings checked first, in this order: the first one wrong stops the start before anything listens.
        PlanRoutes planPoll = new PlanRoutes(plans, credentials, config.node().pollWait(), leader.reconnectRate());
        AgentAuth auth = new AgentAuth(credentials);
        ReportRoutes reported = new ReportRoutes(
                auth, inventory, reports, lending, ReportRoutes.factsLimit(leader.factsChangeInterval()));
        // Only where standbys can be, on etcd: on the file store nothing hands requests on, and the path is not served.
        boolean standbys = leader.store().kind() == AgentConfig.StoreConfig.Kind.ETCD;
        forward = standbys ? new AdminForwardRoutes(vertx, pki, adminSocket) : null;
        ContainerFileTransfers files =
                new ContainerFileTransfers(containerFiles, leader.containers().partTimeout());

        Router router = Router.router(vertx);
        // Nothing before the token or credential is checked costs memory: a body is read only after
        // it, and a join's body is a name.
        new JoinRoutes(pki, joinTokens, credentials).routes(router);
        if (forward != null) {
            forward.routes(router);
        }
        auth.guard(router, leader.maxBodyBytes());
        reported.routes(router);
        planPoll.routes(router);
        files.routes(router);
        router.route()
                .last()
                .handler(ctx -> ChannelAnswers.error(
                        ctx,
                        404,
                        "no %s %s on the agents' channel"
                                .formatted(ctx.request().method(), ctx.normalizedPath())));
        router.route().failureHandler(AgentChannel::failure);

        HttpServerOptions options = ChannelTls.options(leader, pki, standbys);
        ConnectionLimits connections = new ConnectionLimits(
                leader.agentConnectionsPerPeer(), leader.agentConnections(), leader.agentHeaderTimeout());
        server = connections.server(vertx, options).requestHandler(request -> {
            connections.requested(request);
            BrokenBodies.answer(request, false);
            router.handle(request);
        });
        server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        LOG.infof(
                "agents' channel on https://%s:%d, CA %s, TLS by %s",
                leader.agentHost(), server.actualPort(), pki.caHash(), ChannelTls.engine(options));
        return server.actualPort();
    }

    private static void failure(RoutingContext ctx) {
        Throwable cause = ctx.failure();
        if (ctx.response().ended()) {
            // Answered already: a body that could not be decoded (BrokenBodies), a client gone.
            LOG.debugf("%s %s ended after its answer: %s", ctx.request().method(), ctx.normalizedPath(), cause);
            return;
        }
        if (cause instanceof SettingsJson.BadJson bad) {
            ChannelAnswers.error(ctx, 400, bad.getMessage());
        } else if (ctx.statusCode() == 413) {
            ChannelAnswers.closeAfter(
                    ctx,
                    400,
                    ApiError.of(
                            ctx.normalizedPath().equals("/v1/join")
                                    ? "a join's body is {\"node\": \"NAME\"}, not more than %d bytes"
                                            .formatted(JoinRoutes.JOIN_BODY_BYTES)
                                    : "the request body is larger than slurmlet.leader.max-body-bytes allows"));
        } else {
            LOG.errorf(
                    cause, "the agents' channel failed on %s %s", ctx.request().method(), ctx.normalizedPath());
            ChannelAnswers.error(ctx, 500, "the leader failed to answer: its log says why");
        }
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
        if (forward != null) {
            forward.close();
        }
    }

    /**
     * What the channel answers from, each piece named where it is given rather than by its place in a
     * long constructor: the leader's state, opened before the channel is, and the admin API's unix
     * socket that requests a standby hands on go to (none where the leader serves no socket).
     */
    public static final class Builder {
        private Pki pki;
        private JoinTokens joinTokens;
        private AgentCredentials credentials;
        private Inventory inventory;
        private PlanPublisher plans;
        private NodeReports reports;
        private LendingEngine lending;
        private ContainerFiles containerFiles;
        private Path adminSocket;

        private Builder() {}

        public Builder pki(Pki pki) {
            this.pki = pki;
            return this;
        }

        public Builder joinTokens(JoinTokens joinTokens) {
            this.joinTokens = joinTokens;
            return this;
        }

        public Builder credentials(AgentCredentials credentials) {
            this.credentials = credentials;
            return this;
        }

        public Builder inventory(Inventory inventory) {
            this.inventory = inventory;
            return this;
        }

        public Builder plans(PlanPublisher plans) {
            this.plans = plans;
            return this;
        }

        public Builder reports(NodeReports reports) {
            this.reports = reports;
            return this;
        }

        public Builder lending(LendingEngine lending) {
            this.lending = lending;
            return this;
        }

        public Builder containerFiles(ContainerFiles containerFiles) {
            this.containerFiles = containerFiles;
            return this;
        }

        /** @param adminSocket the admin API's unix socket; null where the leader serves none */
        public Builder adminSocket(Path adminSocket) {
            this.adminSocket = adminSocket;
            return this;
        }

        public AgentChannel build() {
            return new AgentChannel(this);
        }
    }
}
