package io.slurmlet.agent.leader;

import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.lending.Phase;
import io.slurmlet.agent.leader.plan.PlanBook;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.plan.MungeKey;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Plans every machine again whenever the settings or a machine's facts change, and publishes the
 * plans that differ. The cluster's munge key is made at the leader's first start ({@code munge.key}
 * in the state directory, 0400) and reaches machines only inside their plans.
 */
public final class PlanPublisher {

    public static final String MUNGE_KEY_FILE = "munge.key";
    private static final Logger LOG = Logger.getLogger(PlanPublisher.class);

    private final SettingsStore settings;
    private final Inventory inventory;
    private final MungeKey mungeKey;
    private final PlanBook book;
    private final LendingBook lending;

    private final AccountsStore accounts;

    public PlanPublisher(SettingsStore settings, Inventory inventory, MungeKey mungeKey, PlanBook book, LendingBook lending,
                         AccountsStore accounts) {
        this.accounts = accounts;
        this.settings = settings;
        this.inventory = inventory;
        this.mungeKey = mungeKey;
        this.book = book;
        this.lending = lending;
        settings.onChange(this::refresh);
        inventory.onChange(this::refresh);
        accounts.onChange(this::refresh);
        refresh();
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
            throw new IOException("the cluster's munge key in %s is not usable (%s): restore it from a backup; "
                    .formatted(file, e.getMessage()) + "a new key stops every machine's munge until all have it", e);
        }
    }

    /** Set while a refresh has failed: the lending thread's tick tries again every second. */
    private volatile boolean owed;

    /** Plans again from the settings and facts now, publishing what changed; a failure is logged and retried. */
    public synchronized void refresh() {
        try {
            publish();
            owed = false;
        } catch (RuntimeException e) {
            owed = true;
            LOG.errorf(e, "publishing the plans failed (%s); trying again every second", e.getMessage());
        }
    }

    /** Publishes again if the last refresh failed. */
    public void retryIfOwed() {
        if (owed) {
            refresh();
        }
    }

    private void publish() {
        Map<String, Phase> phases = lending.phases();
        Set<String> lent = new TreeSet<>();
        Set<String> reclaiming = new TreeSet<>();
        phases.forEach((node, phase) -> (phase == Phase.LENT ? lent : phase == Phase.RECLAIMING ? reclaiming : new TreeSet<String>()).add(node));
        int changed = book.publish(Planner.plan(settings.current().settings(), inventory.all(), mungeKey,
                new Planner.Lent(lent, reclaiming, lending.knownToSlurm()), accounts.current().accounts()));
        if (changed > 0) {
            LOG.infof("published new plans for %d machine%s", changed, changed == 1 ? "" : "s");
        }
    }

    public PlanBook book() {
        return book;
    }
}
