package io.slurmlet.agent.leader;

import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Moves a rotation of Slurm's keys on, on the leader: every second while one is under way it takes
 * the published plans (which machines run slurmctld or slurmd with Slurm's keys) and the machines'
 * last reports (which generation each daemon loaded), asks {@link KeyPhases#next}, and on a new state
 * keeps it ({@link SlurmKeys#advance}, durable first) and has the plans made again. After a failover
 * the next leader reads the state from the cluster's secrets and goes on, waiting for fresh reports.
 */
public final class SlurmKeysDriver implements AutoCloseable {

    /** How long a token of Slurm's lives where slurm_conf's AuthInfo says no {@code ttl=N}: Slurm's default. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

    private static final Duration EVERY = Duration.ofSeconds(1);
    private static final Pattern TTL = Pattern.compile("(?:^|,)\\s*ttl\\s*=\\s*([0-9]{1,9})\\s*(?:,|$)");
    private static final Logger LOG = Logger.getLogger(SlurmKeysDriver.class);

    private final SlurmKeys keys;
    private final Supplier<SlurmSettings> settings;
    private final Supplier<Map<String, PublishedPlan>> plans;
    private final Supplier<Map<String, Observed>> observed;
    private final Runnable replan;
    private final Duration margin;
    private final Clock clock;
    private final Object signal = new Object();
    /** A wake-up not yet taken by the loop; guarded by {@link #signal}. */
    private boolean woken;

    private volatile boolean stopped;
    private Thread thread;

    /**
     * @param settings the settings now (slurm_conf's AuthInfo)
     * @param plans    every machine's published plan
     * @param observed every machine's last report
     * @param replan   has the plans made again, with the keys {@link SlurmKeys#current()} holds then
     * @param margin   waited beyond a token's lifetime before the old key is dropped
     */
    public SlurmKeysDriver(
            SlurmKeys keys,
            Supplier<SlurmSettings> settings,
            Supplier<Map<String, PublishedPlan>> plans,
            Supplier<Map<String, Observed>> observed,
            Runnable replan,
            Duration margin,
            Clock clock) {
        this.keys = keys;
        this.settings = settings;
        this.plans = plans;
        this.observed = observed;
        this.replan = replan;
        this.margin = margin;
        this.clock = clock;
    }

    /** Starts the loop on a daemon thread of its own. */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new Thread(this::run, "slurmlet-slurm-keys");
        thread.setDaemon(true);
        thread.start();
    }

    /** A rotation began: look now rather than at the next second. */
    public void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    @Override
    public void close() {
        stopped = true;
        wake();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            t.interrupt();
        }
    }

    private void run() {
        while (!stopped) {
            try {
                step();
            } catch (RuntimeException e) {
                // A bug: said, and tried again at the next second rather than leaving the rotation held for good.
                LOG.errorf(e, "moving the rotation of Slurm's keys on failed (%s): trying again in a second", e);
            }
            synchronized (signal) {
                try {
                    // Between rotations the loop sleeps until one is asked (wake): a leader without one wakes for
                    // nothing.
                    if (!woken && !stopped) {
                        signal.wait(keys.state().phase() == KeyPhases.Phase.STEADY ? 0 : EVERY.toMillis());
                    }
                    woken = false;
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** One look: moves the rotation on where it can; says whether it did. */
    public boolean step() {
        KeyPhases.State s = keys.state();
        if (s.phase() == KeyPhases.Phase.STEADY) {
            return false;
        }
        Optional<KeyPhases.State> next = KeyPhases.next(
                s,
                daemons(plans.get().values()),
                seen(observed.get()),
                clock.instant(),
                ttl(settings.get()).plus(margin));
        if (next.isEmpty()) {
            return false;
        }
        try {
            keys.advance(next.get());
        } catch (IOException e) {
            // The leader's file or the cluster's secrets: never a key in the message. Tried again at the next second.
            LOG.warnf(
                    "Slurm key rotation %d could not move on to %s: %s",
                    s.rotation(), next.get().phase(), e.getMessage());
            return false;
        } catch (IllegalArgumentException e) {
            return false; // the state moved meanwhile: the next look starts from it
        }
        replan.run();
        return true;
    }

    /** How long before the old key is dropped once every daemon loaded the switch: a token's lifetime and the margin. */
    public Duration ttlPlusMargin(SlurmSettings s) {
        return ttl(s).plus(margin);
    }

    /**
     * The planned daemons a phase waits for, by machine: slurmctld and slurmd among the services of
     * every plan that carries Slurm's keys (a node whose slurmd may not run is not waited for).
     */
    public static Map<String, Set<String>> daemons(Collection<PublishedPlan> plans) {
        Map<String, Set<String>> daemons = new TreeMap<>();
        for (PublishedPlan p : plans) {
            if (p.plan().slurmKeys().isEmpty()) {
                continue;
            }
            Set<String> units = new TreeSet<>(p.plan().slurm().services());
            units.retainAll(KeyPhases.DAEMONS);
            if (!units.isEmpty()) {
                daemons.put(p.plan().node(), units);
            }
        }
        return daemons;
    }

    /** What each machine last said of its keys; a machine that said nothing (or is of an agent too old to) is left out. */
    public static Map<String, SlurmSeen.JwksSeen> seen(Map<String, Observed> observed) {
        Map<String, SlurmSeen.JwksSeen> seen = new TreeMap<>();
        observed.forEach((node, o) -> {
            if (o != null && o.slurm() != null && o.slurm().jwks() != null) {
                seen.put(node, o.slurm().jwks());
            }
        });
        return seen;
    }

    /** A token's lifetime: {@code ttl=N} of slurm_conf's AuthInfo (its key in any case), else {@link #DEFAULT_TTL}. */
    public static Duration ttl(SlurmSettings s) {
        for (Map.Entry<String, String> e : s.slurmConf().entrySet()) {
            if (e.getKey().equalsIgnoreCase("AuthInfo")) {
                Matcher m = TTL.matcher(e.getValue());
                if (m.find()) {
                    return Duration.ofSeconds(Long.parseLong(m.group(1)));
                }
            }
        }
        return DEFAULT_TTL;
    }
}
