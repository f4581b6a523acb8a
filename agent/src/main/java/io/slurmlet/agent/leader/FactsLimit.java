package io.slurmlet.agent.leader;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * How often the leader takes a change of each machine's facts: {@link #BURST} changes at once (a
 * machine being set up reports them as Slurm, then its saved state, appear), then one an interval.
 * Each change replans every machine, and one that changes slurm.conf sends every machine a new
 * plan: a machine whose facts went back and forth (a broken agent, or its credential in other
 * hands) made the leader replan and resend every plan at each report. A report that would change
 * them sooner is refused, and its agent reports again when told; a report of the facts the leader
 * holds, and the first of a machine whose facts it does not hold, are never counted nor refused.
 * Kept in memory: a restarted leader starts every machine afresh.
 */
public final class FactsLimit {

    /** How many changes a machine's facts may make at once before they are taken one an interval. */
    public static final int BURST = 3;

    private static final Logger LOG = Logger.getLogger(FactsLimit.class);
    private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();
    /** A limit that takes every change. */
    public static final FactsLimit NONE = new FactsLimit(Duration.ZERO);

    /**
     * One machine's account.
     *
     * @param due     when its allowance is whole again ({@link #BURST} changes at once): each change
     *                taken pushes it an interval on, from now if it had passed ({@code nanoTime})
     * @param logged  when its last refusal was logged ({@code nanoTime})
     * @param refused refusals since the last one logged
     */
    private record Account(long due, long logged, long refused) {}

    private final long interval;
    private final LongSupplier nanoTime;
    private final Consumer<String> warn;
    private final Map<String, Account> accounts = new ConcurrentHashMap<>();

    /** One change an {@code interval} after the first {@link #BURST}; {@link Duration#ZERO}: every change is taken. */
    public FactsLimit(Duration interval) {
        this(interval, System::nanoTime, LOG::warn);
    }

    /** @param nanoTime the clock, as {@link System#nanoTime} */
    FactsLimit(Duration interval, LongSupplier nanoTime) {
        this(interval, nanoTime, LOG::warn);
    }

    /** @param warn where a refusal's line goes: the leader's log */
    FactsLimit(Duration interval, LongSupplier nanoTime, Consumer<String> warn) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("a facts change interval of " + interval + " is negative");
        }
        this.interval = interval.toNanos();
        this.nanoTime = nanoTime;
        this.warn = warn;
    }

    /** The interval after the first {@link #BURST} changes. */
    public Duration interval() {
        return Duration.ofNanos(interval);
    }

    /** How long until a change of {@code node}'s facts is taken; zero: now. */
    public Duration wait(String node) {
        Account a = accounts.get(node);
        if (a == null || interval == 0) {
            return Duration.ZERO;
        }
        long early = a.due() - (BURST - 1) * interval - nanoTime.getAsLong();
        return early > 0 ? Duration.ofNanos(early) : Duration.ZERO;
    }

    /** A change of {@code node}'s facts was taken now (the store wrote it). */
    public void changed(String node) {
        if (interval == 0) {
            return;
        }
        long now = nanoTime.getAsLong();
        accounts.compute(
                node,
                (n, a) -> a == null
                        ? new Account(now + interval, now - LOG_EVERY_NANOS, 0)
                        : new Account((a.due() - now > 0 ? a.due() : now) + interval, a.logged(), a.refused()));
    }

    /**
     * A change of {@code node}'s facts refused: counted, and logged at most once a minute for the
     * machine, with how many were refused since. Returns how long until one is taken.
     */
    public Duration refused(String node) {
        long now = nanoTime.getAsLong();
        long[] toLog = {0};
        accounts.compute(node, (n, a) -> {
            Account was = a == null ? new Account(now, now - LOG_EVERY_NANOS, 0) : a;
            if (now - was.logged() >= LOG_EVERY_NANOS) {
                toLog[0] = was.refused() + 1;
                return new Account(was.due(), now, 0);
            }
            return new Account(was.due(), was.logged(), was.refused() + 1);
        });
        Duration wait = wait(node);
        if (toLog[0] > 0) {
            warn.accept(
                    ("%s's facts change more often than the leader takes them (%d changes at once, then one every %s: "
                                    + "slurmlet.leader.facts-change-interval): a report that changes them is refused for %d s more (%d refused "
                                    + "since this machine's last line like this one, which come at most once a minute); is something on %s "
                                    + "changing what it reports (its address, a package) back and forth?")
                            .formatted(node, BURST, every(), seconds(wait), toLog[0], node));
        }
        return wait;
    }

    /** {@code wait} in whole seconds, rounded up, at least 1: what a Retry-After says. */
    public static long seconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }

    /** The interval as an admin writes it: {@code 10 s}, {@code 1.5 s}. */
    public String every() {
        Duration d = interval();
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }
}
