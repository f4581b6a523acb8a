package io.slurmlet.agent.node;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Looks every second at the daemons the applied plan runs here (munge, slurmctld, slurmd), with one
 * {@code systemctl show}: one that is down is said at once (status, and health: the {@value #NAME}
 * check fails with the daemon and systemd's reason). One that crashed (failed, or ended by a signal
 * or an exit code) is started again after 1 s (one waiting for its own Restart=, slurmlet's drop-in, is systemd's to start), then with a backoff doubling to 30 s while it does
 * not stay up; a daemon that systemd started {@value #MOST_TRIES} times and that exited again each
 * time (a slurmctld on saved state it cannot read) is left down and said, never kept crash-looping,
 * until it is seen up again or a pass starts it. One someone stopped is left to the next pass, and none is started
 * while the munge or slurm step runs; nor is one said down that went down while such a step runs, as that step
 * restarts daemons itself (a {@code systemctl restart} shows the unit inactive between its stop and its start)
 * and says itself when a start fails.
 * A pass would start it too, but only at the next resync: monitoring must not be told all is well
 * while a daemon is dead. A daemon that systemd itself started again after a crash, often before a
 * look could see it down, is said too (its NRestarts), while it runs, until someone starts it.
 */
final class DaemonWatch extends Worker {

    static final String NAME = "daemons";
    static final Duration FIRST_TRY = Duration.ofSeconds(1);
    static final Duration LAST_TRY = Duration.ofSeconds(30);
    /** Starts in a row that systemd made and the daemon did not outlive, after which it is left down. */
    static final int MOST_TRIES = 5;

    private static final Logger LOG = Logger.getLogger(DaemonWatch.class);

    /** A daemon that is down: since when, what systemd said, how often it was started again, when next. */
    record Down(
            String unit, String said, Instant since, int tries, Instant next, String lastTry, int exitedAfterStart) {}

    private final Services services;
    private final Supplier<List<String>> wanted;
    private final BooleanSupplier busy;
    private final Consumer<Outcome> record;
    private final Clock clock;
    private final Duration every;
    private final Map<String, Down> down = new LinkedHashMap<>();
    /** Daemons systemd started again by their own Restart= (NRestarts above 0): how often, and when this watch first saw the last. */
    private final Map<String, Restarted> restarted = new LinkedHashMap<>();

    private Outcome last;

    /** A daemon that systemd started again by its Restart= since it was last started by hand or by slurmlet. */
    record Restarted(int times, Instant seen) {}

    /**
     * @param wanted the daemons the applied plan runs (none before a plan is applied)
     * @param busy   whether a step that starts and restarts them runs now (it may be doing so itself)
     * @param record where each new verdict goes (the step book, which status and health read)
     */
    DaemonWatch(
            Services services,
            Supplier<List<String>> wanted,
            BooleanSupplier busy,
            Consumer<Outcome> record,
            Clock clock,
            Duration every) {
        super("slurmlet-daemon-watch");
        this.services = services;
        this.wanted = wanted;
        this.busy = busy;
        this.record = record;
        this.clock = clock;
        this.every = every;
    }

    /** One look, and a start of each daemon whose time has come; the verdict, recorded when it changed. */
    synchronized Outcome look() {
        List<String> units = wanted.get();
        Instant now = clock.instant();
        Outcome verdict;
        try {
            boolean stepBefore = busy.getAsBoolean();
            Map<String, Services.UnitState> states = services.states(units);
            // Asked on both sides of the look: a restart the step began or ended during it is still the step's.
            boolean stepAtWork = stepBefore || busy.getAsBoolean();
            down.keySet().retainAll(units);
            restarted.keySet().retainAll(units);
            List<String> restarting = new ArrayList<>();
            for (String unit : units) {
                Services.UnitState state = states.get(unit);
                noteRestarts(unit, state, now);
                if (state == null || state.up()) {
                    if (down.remove(unit) != null) {
                        LOG.infof("%s runs again", unit);
                    }
                    continue;
                }
                Down d = down.get(unit);
                if (d == null && stepAtWork) {
                    // Between the stop and the start of the step's own restart: not a daemon down. Should its start
                    // fail, the step says so, and the first look after the step finds it down.
                    restarting.add(unit);
                    continue;
                }
                if (d == null) {
                    d = new Down(unit, state.said(), now, 0, now.plus(FIRST_TRY), "", 0);
                    LOG.warnf(
                            "%s is down: systemd says %s; %s",
                            unit,
                            state.said(),
                            state.crashed()
                                    ? "starting it again in %d s".formatted(FIRST_TRY.toSeconds())
                                    : state.restarting()
                                            ? "systemd starts it again itself (Restart=)"
                                            : "stopped, not crashed: left to the next pass");
                } else {
                    d = new Down(unit, state.said(), d.since(), d.tries(), d.next(), d.lastTry(), d.exitedAfterStart());
                }
                // Only a crash is undone: a daemon someone stopped is said, and left to the next pass; none while a
                // step restarts them.
                if (state.crashed() && d.exitedAfterStart() < MOST_TRIES && !stepAtWork && !now.isBefore(d.next())) {
                    String tried = "";
                    try {
                        services.start(unit);
                    } catch (SystemException e) {
                        tried = e.getMessage();
                    }
                    Duration wait = FIRST_TRY.multipliedBy(1L << Math.min(d.tries() + 1, 5));
                    // A start systemd made counts; seen up at a later look, the daemon leaves this map and the count
                    // with it.
                    d = new Down(
                            unit,
                            state.said(),
                            d.since(),
                            d.tries() + 1,
                            now.plus(wait.compareTo(LAST_TRY) > 0 ? LAST_TRY : wait),
                            tried,
                            d.exitedAfterStart() + (tried.isEmpty() ? 1 : 0));
                }
                down.put(unit, d);
            }
            if (down.isEmpty()) {
                List<String> up =
                        units.stream().filter(u -> !restarting.contains(u)).toList();
                String running = up.isEmpty() ? "" : String.join(", ", up) + (up.size() == 1 ? " runs" : " run");
                String beingRestarted = restarting.isEmpty()
                        ? ""
                        : String.join(", ", restarting) + (restarting.size() == 1 ? " is" : " are")
                                + " being restarted by this machine's pass";
                verdict = Outcome.unchanged(
                        NAME,
                        units.isEmpty()
                                ? "no daemon to keep here yet"
                                : running
                                        + (running.isEmpty() || beingRestarted.isEmpty() ? "" : "; ")
                                        + beingRestarted
                                        + restartsSaid());
            } else {
                List<String> said = new ArrayList<>();
                for (Down d : down.values()) {
                    said.add("%s is down since %s (systemd: %s); started again %d time%s%s%s"
                            .formatted(
                                    d.unit(),
                                    d.since(),
                                    d.said(),
                                    d.tries(),
                                    d.tries() == 1 ? "" : "s",
                                    d.lastTry().isEmpty() ? "" : ", the last failed: " + d.lastTry(),
                                    d.exitedAfterStart() < MOST_TRIES
                                            ? ""
                                            : "; left down, as it exited after each start (journalctl -u %s says why)"
                                                    .formatted(d.unit())));
                }
                verdict = Outcome.failed(NAME, String.join("; ", said) + restartsSaid());
            }
        } catch (SystemException | RuntimeException e) {
            verdict = Outcome.failed(NAME, "cannot ask systemd how the daemons are: " + e.getMessage());
        }
        if (!verdict.equals(last)) {
            last = verdict;
            record.accept(verdict);
        }
        return verdict;
    }

    /**
     * systemd's own restarts (slurmlet's drop-in: 1 s after a crash) are often over before a look
     * finds the daemon down: its NRestarts still tells, so monitoring learns of the crash. Kept
     * until someone starts the daemon (which sets NRestarts to 0).
     */
    private void noteRestarts(String unit, Services.UnitState state, Instant now) {
        int times = state == null ? 0 : state.restarts();
        Restarted before = restarted.get(unit);
        if (times == 0) {
            restarted.remove(unit);
        } else if (before == null || times != before.times()) {
            restarted.put(unit, new Restarted(times, now));
            LOG.warnf(
                    "%s ended and was started again by systemd (its Restart=): %d time%s since it was last started by hand or by"
                            + " slurmlet (journalctl -u %s says why it ended)",
                    unit, times, times == 1 ? "" : "s", unit);
        }
    }

    private String restartsSaid() {
        List<String> said = new ArrayList<>();
        restarted.forEach((unit, r) ->
                said.add(("; systemd started %s again after it ended %d time%s (the last seen at %s; journalctl -u %s"
                                + " says why)")
                        .formatted(unit, r.times(), r.times() == 1 ? "" : "s", r.seen(), unit)));
        return String.join("", said);
    }

    @Override
    protected void loop() {
        repeat(every, this::look);
    }
}
