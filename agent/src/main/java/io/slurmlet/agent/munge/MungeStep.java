package io.slurmlet.agent.munge;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.observed.MungeSeen;
import io.slurmlet.model.observed.Observed;
import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The cluster's munge key in /etc/munge/munge.key (0400, owned by munge) and munged enabled and
 * running: {@link MungeDiff} decides, this step observes and acts. The key itself is never in an
 * outcome, a log, an error or a report.
 */
public final class MungeStep extends Reconciler<MungeDiff.Wanted, MungeSeen> implements Reports {

    public static final Path KEY_FILE = Path.of(MungeDiff.KEY_FILE);
    static final String MODE = "r--------";
    public static final String UNIT = MungeDiff.UNIT;
    /**
     * The longest a pass waits for a rotation's moment: the leader picks it seconds out; one further
     * (a clock far behind the leader's) is held, and the pass after it looks again.
     */
    static final Duration LONGEST_WAIT = Duration.ofMinutes(2);

    /** Waits; a test's advances its clock instead. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private final Files files;
    private final Services services;
    private final Path keyFile;
    private final InstantSource clock;
    private final Sleeper sleeper;

    /** @param clock the leader's clock as this machine measures it: a rotation's switch is at its moment by it */
    public MungeStep(Files files, Services services, Path root, InstantSource clock) {
        this(files, services, root, clock, d -> Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000));
    }

    public MungeStep(Files files, Services services, Path root, InstantSource clock, Sleeper sleeper) {
        super("munge", MungeDiff::desired, (wanted, seen) -> MungeDiff.diff(wanted, seen, clock.instant()));
        this.files = files;
        this.services = services;
        this.keyFile = ManagedFiles.under(root, KEY_FILE.toString());
        this.clock = clock;
        this.sleeper = sleeper;
    }

    @Override
    public MungeSeen observe(MungeDiff.Wanted wanted) throws IOException, SystemException {
        if (!wanted.kept()) {
            return new MungeSeen(false, false, false, false, false);
        }
        Optional<Files.Stat> now;
        try {
            now = files.stat(keyFile);
        } catch (IOException e) {
            throw new IOException("cannot read %s: %s".formatted(KEY_FILE, e.getMessage()), e);
        }
        boolean matches = now.isPresent()
                && wanted.key().isPresent()
                && MessageDigest.isEqual(now.get().content(), wanted.key().get().bytes());
        boolean owned = now.isPresent()
                && MODE.equals(now.get().mode())
                && "munge".equals(now.get().owner())
                && "munge".equals(now.get().group());
        return new MungeSeen(
                now.isPresent(),
                matches,
                owned,
                services.isEnabled(UNIT),
                services.isActive(UNIT),
                matches ? wanted.key().get().rotation() : null);
    }

    /** Waits for the moment every machine switches keys; one further than {@link #LONGEST_WAIT} is held for a later pass. */
    private void waitFor(Instant at) throws IOException, Held {
        Duration left = Duration.between(clock.instant(), at);
        if (left.compareTo(LONGEST_WAIT) > 0) {
            throw new Held("the cluster's new munge key is written at %s, when every machine switches (in %d s)"
                    .formatted(at, left.toSeconds()));
        }
        try {
            while (!left.isNegative() && !left.isZero()) {
                sleeper.sleep(left);
                left = Duration.between(clock.instant(), at);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(
                    "stopped while waiting for %s, when every machine switches munge keys".formatted(at), e);
        }
    }

    @Override
    protected void act(MungeDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (action instanceof MungeDiff.WriteKey w) {
            if (w.at().isPresent()) {
                waitFor(w.at().get());
            }
            files.write(
                    keyFile,
                    wanted.key()
                            .orElseThrow(() -> new IOException("the plan holds no key"))
                            .bytes(),
                    MODE,
                    "munge",
                    "munge");
        } else if (action instanceof MungeDiff.OwnKey) {
            files.write(
                    keyFile,
                    files.stat(keyFile)
                            .orElseThrow(() -> new IOException(KEY_FILE + " is gone"))
                            .content(),
                    MODE,
                    "munge",
                    "munge");
        } else if (action instanceof MungeDiff.Enable) {
            services.enable(UNIT);
        } else if (action instanceof MungeDiff.Start) {
            services.start(UNIT);
        } else if (action instanceof MungeDiff.Restart) {
            services.restart(UNIT);
        } else {
            throw new IllegalArgumentException("not a munge action: " + action);
        }
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withMunge(seen().orElse(null));
    }
}
