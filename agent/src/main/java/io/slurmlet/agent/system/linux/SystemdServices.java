package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;

import java.time.Duration;
import java.util.List;

/**
 * {@link Services} through systemctl. Queries read systemctl's exit status (is-enabled and
 * is-active exit 0 only when so); changes fail with the command and what it printed.
 */
public final class SystemdServices implements Services {

    static final Duration QUERY = Duration.ofSeconds(10);
    /** A daemon's start can wait on its own start-up (slurmctld reading its state): give it time. */
    static final Duration CHANGE = Duration.ofSeconds(120);

    private final Commands commands;

    public SystemdServices(Commands commands) {
        this.commands = commands;
    }

    @Override
    public boolean isEnabled(String unit) throws SystemException {
        return commands.run(List.of("systemctl", "is-enabled", "--quiet", unit), QUERY).succeeded();
    }

    @Override
    public boolean isActive(String unit) throws SystemException {
        return commands.run(List.of("systemctl", "is-active", "--quiet", unit), QUERY).succeeded();
    }

    /** One {@code systemctl show} for every unit: blocks of Id=, ActiveState=, SubState=, Result=, one per unit. */
    @Override
    public java.util.Map<String, UnitState> states(List<String> units) throws SystemException {
        java.util.Map<String, UnitState> states = new java.util.LinkedHashMap<>();
        if (units.isEmpty()) {
            return states;
        }
        List<String> argv = new java.util.ArrayList<>(List.of("systemctl", "show", "--property=Id,ActiveState,SubState,Result"));
        argv.addAll(units);
        String out = commands.runChecked(argv, QUERY).stdout();
        for (String block : out.strip().split("\n\s*\n")) {
            java.util.Map<String, String> p = new java.util.HashMap<>();
            for (String line : block.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    p.put(line.substring(0, eq), line.substring(eq + 1).strip());
                }
            }
            String id = p.getOrDefault("Id", "");
            for (String unit : units) {
                if (id.equals(unit) || id.equals(unit + ".service")) {
                    states.put(unit, new UnitState(p.getOrDefault("ActiveState", ""), p.getOrDefault("SubState", ""),
                            p.getOrDefault("Result", "")));
                }
            }
        }
        return states;
    }

    @Override
    public String invocation(String unit) throws SystemException {
        String id = commands.runChecked(List.of("systemctl", "show", "--property=InvocationID", "--value", unit), QUERY).stdout().strip();
        if (!id.isEmpty() && !id.matches("[0-9a-f]{32}")) {
            throw new SystemException("systemctl show %s printed InvocationID %s, not 32 hexadecimal digits".formatted(unit, id));
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
        if (isActive(unit)) {
            commands.runChecked(List.of("systemctl", "kill", "--kill-whom=main", "--signal=HUP", unit), CHANGE);
        }
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
