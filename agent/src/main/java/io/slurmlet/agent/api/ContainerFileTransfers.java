package io.slurmlet.agent.api;

import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.leader.ContainerFiles;
import io.slurmlet.model.text.Text;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * The leader sending the files of jobs in containers it holds to joined machines, on the agents'
 * channel: {@link #TRANSFERS} at a time in all and one at a time to each machine (by the name its
 * credential is for), so that no machine holds the others' turns. A file goes out a part at a time
 * ({@link ContainerFiles#PART_BYTES}), each read from the store on a worker thread and written from
 * the connection's event loop once the one before has gone out: no thread waits on a machine that
 * reads slowly, and a part that has not gone out within {@code partTimeout} cuts the transfer (the
 * machine sees a cut transfer, never a short file it could take for whole) and frees its turn.
 *
 * <p>Not Vert.x's {@code AsyncFile.pipeTo}: the bytes are no file of the leader's but parts in its
 * store (etcd, where a standby takes over), whose reads block; a part at a time, each write's own
 * completion the back-pressure, does what the pipe would with one part held in memory per transfer.
 */
final class ContainerFileTransfers {

    private static final Logger LOG = Logger.getLogger(ContainerFileTransfers.class);
    /** How many files the leader sends at once, to all machines together. */
    static final int TRANSFERS = 8;
    /** What a machine told to come back is asked to wait, in seconds. */
    static final String RETRY_AFTER = "5";

    private final ContainerFiles files;
    private final Duration partTimeout;
    private final Semaphore slots = new Semaphore(TRANSFERS);
    /** The machines a file is going to now. */
    private final Set<String> sending = ConcurrentHashMap.newKeySet();

    /**
     * @param partTimeout the longest a part may take to go out ({@code slurmlet.leader.containers.part-timeout})
     */
    ContainerFileTransfers(ContainerFiles files, Duration partTimeout) {
        if (partTimeout.toMillis() < 1) {
            throw new IllegalStateException(
                    ("slurmlet.leader.containers.part-timeout is %s: give how long a part of a file (512 KiB) "
                                    + "may take to go out to a machine, as 60s (the default)")
                            .formatted(partTimeout));
        }
        this.files = files;
        this.partTimeout = partTimeout;
    }

    /**
     * {@code GET} {@link ArtifactTable#LEADER_FILES}{@code SHA256/FILE}, behind {@link AgentAuth}: a
     * file the machine's plan names, to the machine that asked. It checks the digest before it installs.
     */
    void routes(Router router) {
        router.get(ArtifactTable.LEADER_FILES + ":sha256/:file").handler(ctx -> serve(ctx, AgentAuth.node(ctx)));
    }

    /** Sends {@code node} the file of {@code ctx}'s path (its sha256 and name), or tells it why not; on the event loop. */
    void serve(RoutingContext ctx, String node) {
        String sha256 = ctx.pathParam("sha256");
        String file = ctx.pathParam("file");
        if (!sending.add(node)) {
            LOG.infof("%s asked for %s while a file is still going to it: told to come back", node, file);
            ctx.response().putHeader("Retry-After", RETRY_AFTER);
            ChannelAnswers.error(
                    ctx,
                    429,
                    ("the leader sends each machine one file at a time, and one is still going to %s: fetch "
                                    + "them one after another (this machine's next pass fetches %s again)")
                            .formatted(node, file));
            return;
        }
        if (!slots.tryAcquire()) {
            sending.remove(node);
            ctx.response().putHeader("Retry-After", RETRY_AFTER);
            ChannelAnswers.error(
                    ctx,
                    503,
                    "the leader sends %d files at a time and is busy: this machine's next pass fetches %s again"
                            .formatted(TRANSFERS, file));
            return;
        }
        new Transfer(ctx, node, sha256, file).start();
    }

    /** One file going to one machine; its callbacks run on the connection's event loop. */
    private final class Transfer {
        private final RoutingContext ctx;
        private final HttpServerResponse response;
        private final Context context;
        private final String node;
        private final String sha256;
        private final String file;
        private final AtomicBoolean over = new AtomicBoolean();
        private ContainerFiles.Held held;
        private long timer = -1;

        Transfer(RoutingContext ctx, String node, String sha256, String file) {
            this.ctx = ctx;
            this.response = ctx.response();
            this.context = ctx.vertx().getOrCreateContext();
            this.node = node;
            this.sha256 = sha256;
            this.file = file;
        }

        void start() {
            // The machine gone (or its connection closed under it): its turn is free at once.
            response.closeHandler(v -> over("the connection closed before the file went out"));
            context.<Optional<ContainerFiles.Held>>executeBlocking(
                            () -> files.open(sha256).filter(h -> h.file().file().equals(file)), false)
                    .onComplete(found -> {
                        if (over.get()) {
                            return;
                        }
                        if (found.failed()) {
                            failed(found.cause());
                        } else if (found.result().isEmpty()) {
                            ChannelAnswers.error(
                                    ctx,
                                    404,
                                    ("the leader holds no %s with sha256 %s: the plan that named it is older than "
                                                    + "the leader's files; the next plan names where to fetch it")
                                            .formatted(Text.quote(file), Text.quote(sha256)));
                            over(null);
                        } else {
                            held = found.result().get();
                            send(0);
                        }
                    });
        }

        /**
         * Part {@code index} read on a worker, then written, and the next once it has gone out (into
         * the connection's socket: what the machine has not read yet stays in the kernel's buffers);
         * the end once every part has.
         */
        private void send(int index) {
            if (index == held.parts()) {
                if (index == 0) {
                    head();
                }
                // Every byte has gone out, and the end sends none (Content-Length says where the file ends): the
                // machine's turn is free before it has read the last byte, and can ask for its next file.
                over(null);
                response.end();
                LOG.debugf("%s fetched %s from the leader", node, file);
                return;
            }
            context.executeBlocking(() -> files.part(held, index), false).onComplete(read -> {
                if (over.get()) {
                    return;
                }
                if (read.failed()) {
                    failed(read.cause());
                    return;
                }
                if (index == 0) {
                    head(); // only now: a first part that cannot be read is answered 500, as JSON
                }
                long watch = ctx.vertx()
                        .setTimer(
                                Math.max(1, partTimeout.toMillis()),
                                t -> cut(("part %d of its %d (%d KiB each) did "
                                                + "not go out within %d ms (slurmlet.leader.containers.part-timeout): the machine reads slower than that, or "
                                                + "not at all")
                                        .formatted(
                                                index + 1,
                                                held.parts(),
                                                ContainerFiles.PART_BYTES >> 10,
                                                partTimeout.toMillis())));
                timer = watch;
                response.write(Buffer.buffer(read.result())).onComplete(sent -> {
                    ctx.vertx().cancelTimer(watch);
                    if (sent.succeeded()) {
                        send(index + 1);
                    } else if (response.closed() || sent.cause() instanceof ClosedChannelException) {
                        over("the connection closed before the file went out");
                    } else {
                        cut("part %d did not go out: %s".formatted(index + 1, sent.cause()));
                    }
                });
            });
        }

        private void head() {
            response.setStatusCode(200)
                    .putHeader("Content-Type", "application/octet-stream")
                    .putHeader("Content-Length", Long.toString(held.file().bytes()));
        }

        private void failed(Throwable cause) {
            if (response.headWritten()) {
                cut("the leader could not read it: " + cause.getMessage());
                return;
            }
            LOG.errorf("%s: %s", file, cause.getMessage());
            ChannelAnswers.error(ctx, 500, "the leader cannot read " + file + ": " + cause.getMessage());
            over(null);
        }

        /** Ends the transfer cut: the machine sees its connection closed, never a short file it could take for whole. */
        private void cut(String why) {
            if (over(why)) {
                LOG.warnf("%s: sending %s cut: %s; it fetches the file again at its next pass", node, file, why);
                if (!response.reset()) {
                    ctx.request().connection().close(); // ended already: reset does nothing then
                }
            }
        }

        /** Frees this machine's turn and the slot, once; {@code why} (null: done) is for the log. Says whether it was this call. */
        private boolean over(String why) {
            if (!over.compareAndSet(false, true)) {
                return false;
            }
            if (timer >= 0) {
                ctx.vertx().cancelTimer(timer);
            }
            sending.remove(node);
            slots.release();
            if (why != null) {
                LOG.debugf("%s: sending %s ended: %s", node, file, why);
            }
            return true;
        }
    }
}
