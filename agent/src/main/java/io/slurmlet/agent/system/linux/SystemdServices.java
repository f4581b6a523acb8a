package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * {@link Services} through systemctl. Queries read systemctl's exit status (is-enabled and
 * is-active exit 0 only when so); changes fail with the command and what it printed.
 */
public final class SystemdServices implements Services {

    static final Duration QUERY = Duration.ofSeconds(10);
    /** A daemon's start can wait on its own start-up (slurmctld reading its state): give it time. */
    static final Duration CHANGE = Duration.ofSeconds(120);

    /** How long a reread waits, after the files were written, for a reconfigure already on its way (the controller's). */
    static final Duration REREAD_GRACE = Duration.ofSeconds(2);
    /** How long the daemon's main process must have stayed the same before it is sent SIGHUP: no re-execution under way. */
    static final Duration SETTLED = Duration.ofSeconds(1);
    /** The longest a reread waits for the daemon to settle before it signals it anyway. */
    static final Duration SETTLE_LIMIT = Duration.ofSeconds(15);
    /** The longest a look at whether a unit runs waits for one on its way (starting, stopping) to get there. */
    static final Duration TRANSITION_LIMIT = Duration.ofSeconds(5);

    /** Waits; a test's clock moves instead. */
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private static final Logger LOG = Logger.getLogger(SystemdServices.class);

    private final Commands commands;
    private final Sleeper sleeper;
    private final LongSupplier nanos;

    public SystemdServices(Commands commands) {
        this(commands, d -> Thread.sleep(d.toMillis()), System::nanoTime);
    }

    SystemdServices(Commands commands, Sleeper sleeper, LongSupplier nanos) {
        this.commands = commands;
        this.sleeper = sleeper;
        this.nanos = nanos;
    }

    @Override
    public boolean isEnabled(String unit) throws SystemException {
        return commands.run(List.of("systemctl", "is-enabled", "--quiet", unit), QUERY)
                .succeeded();
    }

    /**
     * Running. A unit on its way (starting, stopping, reloading) is asked again until it gets there,
     * for at most {@link #TRANSITION_LIMIT}: slurmd 24.11 re-executes on a SIGHUP or the controller's
     * reconfigure, and a look right after it must not take a daemon that runs for one that does not (a
     * settings preview would then say it is to be started). One still on its way at the limit counts as
     * running. One that waits for its own Restart= is not running, at once, as before: the step that
     * asks starts it, which also clears the start limit its crashes count against (a wait here let
     * systemd's own restarts use up slurmlet's drop-in's four starts in 30 s: ClusterIT, test 24).
     */
    @Override
    public boolean isActive(String unit) throws SystemException {
        long start = nanos.getAsLong();
        while (true) {
            if (commands.run(List.of("systemctl", "is-active", "--quiet", unit), QUERY)
                    .succeeded()) {
                return true;
            }
            UnitState state = states(List.of(unit)).get(unit);
            if (state == null || !onItsWay(state)) {
                return false;
            }
            if (nanos.getAsLong() - start >= TRANSITION_LIMIT.toNanos()) {
                LOG.infof(
                        "%s is still %s/%s after %d s; taken as %s",
                        unit,
                        state.active(),
                        state.sub(),
                        TRANSITION_LIMIT.toSeconds(),
                        state.up() ? "running" : "not running");
                return state.up();
            }
            try {
                sleeper.sleep(Duration.ofMillis(250));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SystemException(
                        "interrupted while waiting for " + unit + " to be " + state.active() + " no more");
            }
        }
    }

    /** Between two states: activating (not an automatic restart's wait), deactivating or reloading. */
    private static boolean onItsWay(UnitState state) {
        return !state.restarting()
                && (state.active().equals("activating")
                        || state.active().equals("deactivating")
                        || state.active().equals("reloading"));
    }

    /** One {@code systemctl show} for every unit: blocks of Id=, ActiveState=, SubState=, Result=, NRestarts=, one per unit. */
    @Override
    public Map<String, UnitState> states(List<String> units) throws SystemException {
        Map<String, UnitState> states = new LinkedHashMap<>();
        if (units.isEmpty()) {
            return states;
        }
        List<String> argv =
                new ArrayList<>(List.of("systemctl", "show", "--property=Id,ActiveState,SubState,Result,NRestarts"));
        argv.addAll(units);
        String out = commands.runChecked(argv, QUERY).stdout();
        for (String block : out.strip().split("\n\s*\n")) {
            Map<String, String> p = new HashMap<>();
            for (String line : block.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    p.put(line.substring(0, eq), line.substring(eq + 1).strip());
                }
            }
            String id = p.getOrDefault("Id", "");
            for (String unit : units) {
                if (id.equals(unit) || id.equals(unit + ".service")) {
                    String restarts = p.getOrDefault("NRestarts", "");
                    states.put(
                            unit,
                            new UnitState(
                                    p.getOrDefault("ActiveState", ""),
                                    p.getOrDefault("SubState", ""),
                                    p.getOrDefault("Result", ""),
                                    restarts.matches("[0-9]{1,9}") ? Integer.parseInt(restarts) : 0));
                }
            }
        }
        return states;
    }

    @Override
    public String invocation(String unit) throws SystemException {
        String id = commands.runChecked(List.of("systemctl", "show", "--property=InvocationID", "--value", unit), QUERY)
                .stdout()
                .strip();
        if (!id.isEmpty() && !id.matches("[0-9a-f]{32}")) {
            throw new SystemException(
                    "systemctl show %s printed InvocationID %s, not 32 hexadecimal digits".formatted(unit, id));
        }
        return id;
    }

    @Override
    public void enable(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "enable", unit), CHANGE);
    }

    /**
     * Starts {@code unit}. Its failed state and start-limit count are reset first: a unit's start
     * limit (a site's own Restart= drop-in) bounds systemd's own restarts of a crashing daemon, never a
     * start slurmlet decided (a settings change, or the daemon watch, which backs off itself).
     */
    @Override
    public void start(String unit) throws SystemException {
        commands.run(List.of("systemctl", "reset-failed", unit), QUERY);
        commands.runChecked(List.of("systemctl", "start", unit), CHANGE);
    }

    @Override
    public void restart(String unit) throws SystemException {
        commands.run(List.of("systemctl", "reset-failed", unit), QUERY);
        commands.runChecked(List.of("systemctl", "restart", unit), CHANGE);
    }

    @Override
    public void reread(String unit) throws SystemException {
        // SIGHUP to the main process alone, as slurmd's own ExecReload sends it, but with no reload job: slurmd 24.11
        // re-executes itself on it (a new main PID, which it tells systemd), and systemd fails a reload job whose main
        // process changes under it ("Job for slurmd.service failed", measured). The controller's reconfigure makes the
        // same re-execution without a job. Never try-reload-or-restart: that restarts a unit without ExecReload.
        //
        // Two re-executions close together lose the daemon: the first new slurmd tells systemd its PID and is gone by
        // the time systemd reads it ("New main PID … does not exist or is a zombie"), systemd takes the unit for ended,
        // and the slurmd that runs on is outside it (CI, 24.11, the controller's reconfigure and this SIGHUP within a
        // second). So the signal waits for the controller's reconfigure that may be on its way (REREAD_GRACE), and for
        // the main PID to have stayed the same for SETTLED: one re-execution at a time. 22.05 does not re-execute: its
        // PID stays, and it rereads after the grace.
        long start = nanos.getAsLong();
        String pid = mainPid(unit);
        long changed = start;
        int changes = 0;
        try {
            while (true) {
                long now = nanos.getAsLong();
                boolean graceOver = now - start >= REREAD_GRACE.toNanos();
                boolean settled = now - changed >= SETTLED.toNanos();
                if (graceOver && settled || now - start >= SETTLE_LIMIT.toNanos()) {
                    break;
                }
                sleeper.sleep(Duration.ofMillis(200));
                String again = mainPid(unit);
                if (!again.equals(pid)) {
                    pid = again;
                    changed = nanos.getAsLong();
                    changes++;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SystemException(
                    "interrupted while waiting for " + unit + " to settle before it rereads its files");
        }
        if (isActive(unit)) {
            commands.runChecked(List.of("systemctl", "kill", "--kill-whom=main", "--signal=HUP", unit), CHANGE);
            LOG.infof(
                    "%s (main PID %s) sent SIGHUP to reread its files, %.1f s after they were written; its main PID changed %d "
                            + "times meanwhile",
                    unit, pid, (nanos.getAsLong() - start) / 1e9, changes);
        }
    }

    /** The kernel's clock ticks a second, in which /proc/PID/stat gives a process's start (USER_HZ, 100 on Linux). */
    private static final long TICKS = 100;

    @Override
    public java.util.OptionalLong mainStartedMillis(String unit) throws SystemException {
        String pid = mainPid(unit);
        if (pid.equals("0") || !pid.matches("[0-9]{1,10}")) {
            return java.util.OptionalLong.empty();
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", pid, "stat"));
            // pid (comm) state ppid … : the comm may hold spaces, so the fields are counted after its ')'; starttime
            // is the 22nd field, the 20th after it.
            String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return java.util.OptionalLong.of(Long.parseLong(after[19]) * 1000 / TICKS);
        } catch (java.io.IOException | RuntimeException e) {
            return java.util.OptionalLong.empty(); // it ended meanwhile, or no /proc: not known
        }
    }

    @Override
    public long bootMillis() throws SystemException {
        try {
            String uptime = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"));
            return Math.round(Double.parseDouble(uptime.strip().split(" ")[0]) * 1000);
        } catch (java.io.IOException | RuntimeException e) {
            throw new SystemException("cannot read /proc/uptime: " + e.getMessage());
        }
    }

    @Override
    public String mainPid(String unit) throws SystemException {
        return commands.runChecked(List.of("systemctl", "show", "-p", "MainPID", "--value", unit), QUERY)
                .stdout()
                .strip();
    }

    @Override
    public void stop(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "stop", unit), CHANGE);
    }

    @Override
    public void disable(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "disable", unit), CHANGE);
    }

    @Override
    public void reload() throws SystemException {
        commands.runChecked(List.of("systemctl", "daemon-reload"), CHANGE);
    }
}
