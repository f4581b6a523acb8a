package io.slurmlet.agent.leader;

import io.quarkus.runtime.Quarkus;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.plan.PlanBook;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.store.Store;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.SlurmAuthKeys;
import io.slurmlet.model.plan.SlurmJwks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The leader's one controller loop: plans every machine again whenever anything it plans from
 * changes in the store (the settings, a machine's facts, the accounts, the lending), and
 * publishes the plans that differ. It hears of changes by watching the store, so whoever writes
 * (an admin's request, an agent's report, the lending engine) never waits for a replan, and a
 * replan that fails is tried again with backoff up to 10 s until one succeeds. The cluster's munge
 * key is made at the leader's first start ({@code munge.key} in the state directory, 0400) and
 * reaches machines only inside their plans.
 */
public final class PlanPublisher implements AutoCloseable {

    public static final String MUNGE_KEY_FILE = "munge.key";
    /** The store's keys plans are made from, beside the machines' facts; a change of any other (plans, tokens) is not a reason to plan. */
    static final Set<String> PLANNED_FROM = Set.of(SettingsStore.FILE_NAME, AccountsStore.FILE_NAME);

    private static final Logger LOG = Logger.getLogger(PlanPublisher.class);
    private static final long MAX_BACKOFF_MS = 10_000;

    private final SettingsStore settings;
    private final Inventory inventory;
    private final Supplier<MungeKey> mungeKey;
    private final Supplier<SlurmAuthKeys> slurmKeys;
    private final PlanBook book;
    private final LendingBook lending;
    private final AccountsStore accounts;
    private final Artifacts artifacts;
    private final Runnable unwatch;
    private final Thread thread;
    private final Object signal = new Object();
    /** Set by a change, cleared by the loop as it begins a replan; guarded by {@link #signal}. */
    private boolean dirty;

    private volatile boolean stopped;
    /** The settings' revision the last plans that were published were made from. */
    private volatile long plannedFrom;

    /** Publishes the first plans at once (a failure is retried by the loop), then watches {@code store}; no files of containers. */
    public PlanPublisher(
            Store store,
            SettingsStore settings,
            Inventory inventory,
            MungeKey mungeKey,
            PlanBook book,
            LendingBook lending,
            AccountsStore accounts) {
        this(store, settings, inventory, mungeKey, book, lending, accounts, List::of);
    }

    /** The pinned files of jobs in containers as they are when the leader plans: the files it holds change them. */
    @FunctionalInterface
    public interface Artifacts {
        List<Artifact> now() throws IOException;
    }

    /** @param artifacts the pinned files of jobs in containers, with their URLs, read at each plan (a file the leader is handed changes them) */
    public PlanPublisher(
            Store store,
            SettingsStore settings,
            Inventory inventory,
            MungeKey mungeKey,
            PlanBook book,
            LendingBook lending,
            AccountsStore accounts,
            Artifacts artifacts) {
        this(store, settings, inventory, () -> mungeKey, book, lending, accounts, artifacts);
    }

    /** @param mungeKey the cluster's munge key as each plan is made; Slurm's own keys made here, once, under auth=slurm */
    public PlanPublisher(
            Store store,
            SettingsStore settings,
            Inventory inventory,
            Supplier<MungeKey> mungeKey,
            PlanBook book,
            LendingBook lending,
            AccountsStore accounts,
            Artifacts artifacts) {
        this(store, settings, inventory, mungeKey, firstKeys(), book, lending, accounts, artifacts);
    }

    private static Supplier<SlurmAuthKeys> firstKeys() {
        SlurmAuthKeys first = new SlurmAuthKeys(1, SlurmJwks.first(SlurmKeys.FIRST_KID));
        return () -> first;
    }

    /**
     * @param mungeKey  the cluster's munge key as each plan is made ({@link MungeKeys#current}: a rotation changes it,
     *                  then nudges)
     * @param slurmKeys Slurm's own keys as each plan is made under auth=slurm ({@link SlurmKeys#current})
     */
    public PlanPublisher(
            Store store,
            SettingsStore settings,
            Inventory inventory,
            Supplier<MungeKey> mungeKey,
            Supplier<SlurmAuthKeys> slurmKeys,
            PlanBook book,
            LendingBook lending,
            AccountsStore accounts,
            Artifacts artifacts) {
        this.slurmKeys = slurmKeys;
        this.artifacts = artifacts;
        this.settings = settings;
        this.inventory = inventory;
        this.mungeKey = mungeKey;
        this.book = book;
        this.lending = lending;
        this.accounts = accounts;
        // Watched first: a change made while the first plans are made is planned again.
        this.unwatch = store.watch(key -> {
            if (PLANNED_FROM.contains(key)
                    || LendingBook.holds(key)
                    || Inventory.holds(key)
                    || ContainerFiles.holds(key)) {
                nudge();
            }
        });
        if (!refresh()) {
            nudge();
        }
        this.thread = new Thread(this::run, "slurmlet-planner");
        thread.setDaemon(true);
        thread.start();
    }

    /** Reads the cluster's munge key from the state directory, making it at the first start. */
    public static MungeKey mungeKey(Path stateDir) throws IOException {
        Path file = stateDir.resolve(MUNGE_KEY_FILE);
        try {
            return MungeKey.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            MungeKey made = MungeKey.random();
            AtomicFile.ensurePrivateDirectory(stateDir);
            AtomicFile.write(file, made.bytes(), PosixFilePermissions.fromString("r--------"));
            LOG.infof("made the cluster's munge key in %s", file);
            return made;
        } catch (IllegalArgumentException e) {
            throw new IOException(
                    "the cluster's munge key in %s is not usable (%s): restore it from a backup; "
                                    .formatted(file, e.getMessage())
                            + "a new key stops every machine's munge until all have it",
                    e);
        }
    }

    /** Something plans are made from changed: the loop plans again (changes that come together are planned once). */
    public void nudge() {
        synchronized (signal) {
            dirty = true;
            signal.notifyAll();
        }
    }

    /** Plans after each change; after a failure, again once its backoff is over, changed or not. */
    private void run() {
        long backoff = 0;
        while (!stopped) {
            synchronized (signal) {
                try {
                    long until = System.nanoTime() + backoff * 1_000_000;
                    for (long left = backoff; left > 0 && !stopped; left = (until - System.nanoTime()) / 1_000_000) {
                        signal.wait(left); // a change during the backoff does not cut it short
                    }
                    while (backoff == 0 && !dirty && !stopped) {
                        signal.wait();
                    }
                } catch (InterruptedException e) {
                    return;
                }
                dirty = false;
            }
            if (stopped) {
                return;
            }
            boolean published;
            try {
                published = refresh();
            } catch (Error e) {
                // Out of memory (the heap, or direct buffers), say: a planner that stopped here would
                // leave every machine on its last plan while the leader answered as if all were well.
                // The agent exits and systemd starts it again, which plans from the store at once.
                LOG.fatalf(e, "the planner stopped on %s: the agent exits so that systemd starts it again", e);
                Quarkus.asyncExit(3);
                return;
            }
            if (published) {
                backoff = 0;
            } else {
                backoff = backoff == 0 ? 1000 : Math.min(MAX_BACKOFF_MS, backoff * 2);
                LOG.warnf("trying again in %d s", backoff / 1000);
            }
        }
    }

    /** Plans from the settings, facts, accounts and lending now, publishing what changed; says whether that worked. */
    public synchronized boolean refresh() {
        try {
            publish();
            return true;
        } catch (RuntimeException e) {
            LOG.errorf(e, "publishing the plans failed: %s", e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        stopped = true;
        unwatch.run();
        nudge();
        thread.interrupt();
    }

    private void publish() {
        long t0 = System.nanoTime();
        var doc = settings.current();
        var s = doc.settings();
        var machines = inventory.all();
        List<Artifact> pinned;
        try {
            pinned = artifacts.now();
        } catch (IOException e) {
            throw new UncheckedIOException("reading the files the leader holds for containers", e);
        }
        Planner.Plans plans = withArtifacts(
                Planner.plan(
                        s,
                        machines,
                        mungeKey.get(),
                        slurmKeys.get(),
                        lending.lent(s, machines),
                        accounts.current().accounts()),
                pinned);
        try {
            // Kept before any machine can be sent a slurm.conf with them: no later plan may drop one.
            lending.memoryClasses(plans.memoryClasses());
        } catch (IOException e) {
            throw new UncheckedIOException("keeping the memory classes of the plans", e);
        }
        long planned = System.nanoTime();
        int changed = book.publish(plans, t0);
        plannedFrom = doc.revision();
        if (changed > 0) {
            long done = System.nanoTime();
            // How long a change takes to reach the machines, on the leader's side: what bench/README's figures break
            // down.
            LOG.infof(
                    "published new plans for %d machine%s (planned in %d ms, published in %d ms)",
                    changed, changed == 1 ? "" : "s", (planned - t0) / 1_000_000, (done - planned) / 1_000_000);
        }
    }

    /** The pinned files of jobs in containers as plans carry them now; none where the leader's store cannot say. */
    public List<Artifact> artifacts() {
        try {
            return artifacts.now();
        } catch (IOException e) {
            LOG.warnf("reading the files the leader holds for containers: %s", e.getMessage());
            return List.of();
        }
    }

    /** The settings' revision the machines' plans were last made from: 0 until the first plans. */
    public long plannedFrom() {
        return plannedFrom;
    }

    /** {@code plans} with {@code artifacts} in each plan that installs containers. */
    static Planner.Plans withArtifacts(Planner.Plans plans, List<Artifact> artifacts) {
        Map<String, NodePlan> nodes = new TreeMap<>();
        plans.nodes().forEach((name, plan) -> {
            ContainersPlan c = plan.containers();
            nodes.put(
                    name,
                    c.install()
                            ? plan.withContainers(new ContainersPlan(true, artifacts, c.sharedPath(), c.gpus()))
                            : plan);
        });
        return new Planner.Plans(nodes, plans.problems(), plans.notes(), plans.memoryClasses());
    }

    public PlanBook book() {
        return book;
    }
}
