package io.slurmlet.agent.leader.lending;

import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.leader.plan.Sections;
import io.slurmlet.agent.slurm.HostList;
import io.slurmlet.agent.storage.StorageDiff;
import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.observed.StorageSeen;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Moves every node toward what the settings wish, on the leader: one thread that applies the
 * {@link Lending} rules whenever the settings change, the controller reports Slurm's node states,
 * a hook ends, or a second passes; hooks run on threads of their own, one per node at most, so a
 * hook that hangs holds up no other node. Every change is on disk before it is acted on; the
 * planner hears of it from the store and publishes new plans (the controller's holds the node states).
 */
public final class LendingEngine implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LendingEngine.class);

    private final LendingBook book;
    private final SettingsStore settings;
    private final Inventory inventory;
    private final NodeReports reports;
    private final Hooks hooks;
    private final Duration busyRetry;
    private final Clock clock;
    private final Set<String> hookRunning = ConcurrentHashMap.newKeySet();
    private final ExecutorService hookThreads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "slurmlet-hook");
        t.setDaemon(true);
        return t;
    });
    private final Object signal = new Object();
    private boolean woken;
    private volatile boolean stopped;
    /** Set once close() stops the hooks still running: their ends are not kept. */
    private volatile boolean hooksStopped;

    private Thread thread;

    public LendingEngine(
            LendingBook book,
            SettingsStore settings,
            Inventory inventory,
            NodeReports reports,
            Hooks hooks,
            Duration busyRetry,
            Clock clock) {
        this.book = book;
        this.settings = settings;
        this.inventory = inventory;
        this.reports = reports;
        this.hooks = hooks;
        this.busyRetry = busyRetry;
        this.clock = clock;
    }

    public void start() {
        thread = new Thread(this::run, "slurmlet-lending");
        thread.setDaemon(true);
        thread.start();
    }

    /** Something changed: look again now rather than at the next second. */
    public void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void run() {
        while (!stopped) {
            try {
                tick();
            } catch (IOException | RuntimeException e) {
                LOG.errorf(e, "lending: %s", e.getMessage());
            } catch (Error e) {
                LOG.errorf(e, "lending stopped: %s", e.getMessage());
                throw e;
            }
            synchronized (signal) {
                if (!woken) {
                    try {
                        signal.wait(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                woken = false;
            }
        }
    }

    /** One look at every node; public for tests, which drive it without the thread. */
    public synchronized void tick() throws IOException {
        // Noted first: which nodes are still leaving Slurm depends on which slurmctld has a record of.
        book.known(List.copyOf(
                slurmNodes(settings.current().settings().withEnabled(true)).keySet()));
        Cluster c = cluster();
        SlurmSettings s = c.inSlurm();
        Map<String, SlurmNodeState> slurm = slurmNodes(s);
        Set<String> names = new TreeSet<>(s.nodes());
        names.addAll(c.named().lentNodes());
        names.addAll(book.all().keySet());
        Instant now = clock.instant();
        for (String node : names) {
            if (hookRunning.contains(node)) {
                continue;
            }
            LendingRecord before = book.get(node).orElse(LendingRecord.platform(node, now.toString()));
            if (!before.hookRunning().isEmpty()) { // not ours (hookRunning above): the leader stopped during it
                LOG.warnf(
                        "%s: the %s hook was running when the leader stopped (started at %s); it runs again",
                        node, before.hookRunning(), before.hookStartedAt());
                before = before.interrupted(now.toString());
                book.put(before);
            }
            Lending.Decision d = Lending.decide(before, inputs(c, node, slurm), now);
            // What the leader is about to do is on disk before it does it: a hook noted as running. A node's own
            // document:
            // a look at ten thousand nodes writes those that changed, each its few bytes.
            book.put(
                    d.hook() == Lending.Hook.NONE
                            ? d.record()
                            : d.record().hookStarted(word(d.hook()), now.toString()));
            if (d.record().phase() != before.phase()) {
                LOG.infof(
                        "%s: %s → %s (%s)",
                        node,
                        before.phase().word(),
                        d.record().phase().word(),
                        d.record()
                                .transitions()
                                .get(d.record().transitions().size() - 1)
                                .why());
            }
            if (d.hook() != Lending.Hook.NONE) {
                runHook(node, d.hook());
            }
        }
    }

    /**
     * The cluster as the settings name it ({@code named}: every machine of all_nodes among the
     * nodes) and as Slurm runs it ({@code inSlurm}: with the nodes still leaving it, see
     * {@link Planner#leaving}).
     */
    private record Cluster(
            SlurmSettings named,
            SlurmSettings inSlurm,
            Set<String> leaving,
            Set<String> lent,
            Set<String> namedNodes,
            Set<String> slurmNodes) {
        /** With the sets every node's look asks of, made once a look: a list's search once a node made ten thousand nodes' looks quadratic. */
        Cluster(SlurmSettings named, SlurmSettings inSlurm, Set<String> leaving) {
            this(
                    named,
                    inSlurm,
                    leaving,
                    named.lentNodes(),
                    new HashSet<>(named.nodes()),
                    new HashSet<>(inSlurm.nodes()));
        }
    }

    private Cluster cluster() {
        SlurmSettings wished = settings.current().settings();
        var machines = inventory.all();
        List<String> ids = List.copyOf(new TreeSet<>(machines.keySet()));
        Set<String> leaving = Planner.leaving(wished, book.underWay(), book.knownToSlurm(), machines);
        return new Cluster(
                wished.withNodes(ids), Planner.inSlurm(wished, leaving).withNodes(ids), leaving);
    }

    private Lending.Inputs inputs(Cluster c, String node, Map<String, SlurmNodeState> slurm) {
        // A node lent by name before its agent joined (all_nodes) is not Slurm's yet: it waits on the platform.
        // A node leaving Slurm is wished back whatever lent says: the settings no longer name it.
        boolean wished = c.lent().contains(node)
                && c.namedNodes().contains(node)
                && !c.leaving().contains(node);
        SlurmSettings s = c.inSlurm();
        // Only an enabled cluster takes a leaving node out of slurm.conf: disabled, the files stay as they are.
        List<String> queuedNaming = c.named().enabled() && c.leaving().contains(node)
                ? reports.jobsQueued(s.controller()).stream()
                        .filter(j -> names(j, node))
                        .map(Object::toString)
                        .toList()
                : List.of();
        return new Lending.Inputs(
                wished,
                s.enabled() && c.slurmNodes().contains(node),
                Optional.ofNullable(slurm.get(node)),
                hooks.has(Lending.Hook.DRAIN),
                hooks.has(Lending.Hook.RELEASE),
                busyRetry,
                c.leaving().contains(node),
                queuedNaming,
                wished
                        ? storageUnready(
                                s, node, reports.get(node).map(r -> r.report().observed()))
                        : Optional.empty());
    }

    /**
     * Why {@code node} cannot take jobs yet: the export the settings have it mount (shared.nfs, or the
     * shared.server's) is not mounted there, as its agent last reported; a job started before would
     * write to the bare folder under the mount point. Empty where the node mounts nothing (it is the
     * server, or the site mounts the path) or has it mounted.
     */
    static Optional<String> storageUnready(SlurmSettings s, String node, Optional<Observed> seen) {
        if (!(Sections.storage(s, node, EnumSet.of(Role.COMPUTE), List.of()) instanceof StoragePlan.Mount m)) {
            return Optional.empty();
        }
        StorageSeen storage = seen.map(Observed::storage).orElse(null);
        StorageSeen.Unit unit = storage == null ? null : storage.mounts().get(StorageDiff.unitName(m.path()));
        if (unit != null && unit.active() && unit.what().equals(m.source())) {
            return Optional.empty();
        }
        return Optional.of("its agent has not mounted %s at %s yet: Slurm runs no job there before"
                .formatted(m.source(), m.path()));
    }

    /** Whether one of the host lists {@code job} names holds {@code node}; one that cannot be read is taken to. */
    private static boolean names(QueuedJob job, String node) {
        for (String hosts : job.nodes()) {
            try {
                if (HostList.expand(hosts).contains(node)) {
                    return true;
                }
            } catch (IllegalArgumentException e) {
                return true;
            }
        }
        return false;
    }

    private Map<String, SlurmNodeState> slurmNodes(SlurmSettings s) {
        Map<String, SlurmNodeState> nodes = new TreeMap<>();
        if (s.enabled() && !s.controller().isEmpty()) {
            reports.get(s.controller()).ifPresent(r -> r.report().slurmNodes().forEach(n -> nodes.put(n.name(), n)));
        }
        return nodes;
    }

    private void runHook(String node, Lending.Hook hook) {
        hookRunning.add(node);
        LOG.infof("%s: running the %s hook", node, word(hook));
        hookThreads.submit(() -> {
            try {
                Lending.HookResult result = hooks.run(hook, node, runId(node));
                if (hooksStopped) {
                    // Stopped with the leader: how it would have ended is not known; the next leader runs it again.
                    LOG.infof(
                            "%s: the %s hook was stopped with the leader; the next leader runs it again",
                            node, word(hook));
                    return;
                }
                synchronized (this) {
                    LendingRecord now = book.get(node).orElseThrow();
                    LendingRecord after = Lending.afterHook(now, hook, result, busyRetry, clock.instant())
                            .hookEnded();
                    book.put(after);
                    if (!after.lastError().equals(now.lastError())) {
                        LOG.warnf("%s: %s", node, after.lastError());
                    }
                    if (after.phase() != now.phase()) {
                        LOG.infof(
                                "%s: %s → %s (%s)",
                                node,
                                now.phase().word(),
                                after.phase().word(),
                                after.transitions()
                                        .get(after.transitions().size() - 1)
                                        .why());
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.errorf(e, "%s: the %s hook's result could not be kept: %s", node, hook, e.getMessage());
            } finally {
                hookRunning.remove(node);
                wake();
            }
        });
    }

    private static String word(Lending.Hook hook) {
        return hook == Lending.Hook.DRAIN ? "drain" : "release";
    }

    /** The same for every run of the hook of one transition (the node and when its phase began): what {@code {run}} is. */
    private String runId(String node) {
        LendingRecord r = book.get(node).orElseThrow();
        return node + "-" + r.phase().word() + "-" + Instant.parse(r.since()).toEpochMilli();
    }

    /** Every node's lending as ctl shows it. */
    public List<NodeLending> view() {
        Cluster c = cluster();
        SlurmSettings s = c.named();
        Map<String, SlurmNodeState> slurm = slurmNodes(c.inSlurm());
        Set<String> names = new TreeSet<>(c.inSlurm().nodes());
        names.addAll(c.lent()); // one lent before its agent joined has no record: it waits on the platform
        names.addAll(book.all().keySet());
        List<NodeLending> view = new ArrayList<>();
        for (String node : names) {
            LendingRecord r = book.get(node).orElse(LendingRecord.platform(node, ""));
            String waiting = hookRunning.contains(node)
                    ? "a hook runs"
                    : c.lent().contains(node) && !c.namedNodes().contains(node)
                            ? "lent, but its agent has not joined yet"
                            : r.waitingFor();
            view.add(new NodeLending(
                    node,
                    r.phase().word(),
                    c.lent().contains(node) && !c.leaving().contains(node),
                    r.since(),
                    waiting,
                    r.lastError(),
                    r.lastErrorAt(),
                    r.hookOutput(),
                    slurm.get(node),
                    r.transitions()));
        }
        return view;
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /**
     * Stops: a hook that ends within {@code grace} still gets its result kept; one that does not is
     * killed (its process tree), its result not kept (hook_running stays in the book), and the next
     * leader runs it again. A leader that lost the lead gives none: the next leader may run it already.
     */
    public void close(Duration grace) {
        stopped = true;
        wake();
        hookThreads.shutdown();
        try {
            if (!hookThreads.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                hooksStopped = true;
                hookThreads.shutdownNow();
                hookThreads.awaitTermination(2, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            hooksStopped = true;
            hookThreads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
