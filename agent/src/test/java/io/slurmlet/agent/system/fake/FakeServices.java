package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** systemd in memory, with a log of every change asked of it. */
public final class FakeServices implements Services {

    private final Set<String> enabled = new HashSet<>();
    private final Set<String> active = new HashSet<>();
    private final Set<String> failing = new HashSet<>();
    private final Map<String, String> invocations = new HashMap<>();
    private final Map<String, Integer> pids = new HashMap<>();
    private final Map<String, Long> started = new HashMap<>();
    /** Milliseconds since boot: each look at it and each process start moves it on a second. */
    private long boot = 1_000_000;

    private int lastPid = 100;
    /** Units whose reread (SIGHUP) fails to re-execute, as a reconfigure a bad file fails: the old process runs on. */
    private final Set<String> rereadFails = new HashSet<>();

    private final Set<String> killing = new HashSet<>();
    public final List<String> log = new ArrayList<>();

    public FakeServices running(String unit) {
        enabled.add(unit);
        active.add(unit);
        invocations.putIfAbsent(unit, fresh()); // already running: the same invocation runs on
        return this;
    }

    /** Starting or restarting {@code unit} fails, as systemctl does when the daemon exits at once. */
    public FakeServices failing(String unit) {
        failing.add(unit);
        return this;
    }

    /**
     * The agent is killed while it asks for a restart of {@code unit}: the call never returns and
     * the restart never happens (an {@link IllegalStateException} stands for the SIGKILL).
     */
    public FakeServices killedAtRestart(String unit) {
        killing.add(unit);
        return this;
    }

    /** An admin restarted {@code unit} by hand, now. */
    public FakeServices restartedByHand(String unit) {
        activated(unit);
        return this;
    }

    /** Starting or restarting {@code unit} works again. */
    public FakeServices recovered(String unit) {
        failing.remove(unit);
        return this;
    }

    @Override
    public boolean isEnabled(String unit) {
        return enabled.contains(unit);
    }

    private final java.util.Map<String, String> results = new java.util.HashMap<>();

    /** {@code unit} ends, as on a SIGKILL: inactive, failed with result signal. */
    public FakeServices died(String unit) {
        active.remove(unit);
        results.put(unit, "signal");
        return this;
    }

    private final Set<String> autoRestarting = new HashSet<>();

    /** {@code unit} ends on a SIGKILL and waits for its own Restart= (slurmlet's drop-in): activating, auto-restart. */
    public FakeServices diedWithRestart(String unit) {
        died(unit);
        autoRestarting.add(unit);
        return this;
    }

    private final Map<String, Integer> restarts = new HashMap<>();

    /** {@code unit} ended and systemd started it again by its own Restart=, between two looks: active, NRestarts one more. */
    public FakeServices restartedBySystemd(String unit) {
        int n = restarts.getOrDefault(unit, 0) + 1;
        activated(unit);
        restarts.put(unit, n);
        return this;
    }

    @Override
    public java.util.Map<String, UnitState> states(List<String> units) {
        java.util.Map<String, UnitState> states = new java.util.LinkedHashMap<>();
        for (String u : units) {
            states.put(
                    u,
                    active.contains(u)
                            ? new UnitState("active", "running", "success", restarts.getOrDefault(u, 0))
                            : autoRestarting.contains(u)
                                    ? new UnitState("activating", "auto-restart", results.get(u))
                                    : results.containsKey(u)
                                            ? new UnitState("failed", "failed", results.get(u))
                                            : new UnitState("inactive", "dead", "success"));
        }
        return states;
    }

    @Override
    public boolean isActive(String unit) {
        return active.contains(unit);
    }

    @Override
    public String invocation(String unit) {
        return invocations.getOrDefault(unit, "");
    }

    @Override
    public String mainPid(String unit) {
        return active.contains(unit) ? Integer.toString(pids.computeIfAbsent(unit, u -> ++lastPid)) : "0";
    }

    /** {@code unit} re-executed (a new main process, the same invocation), as on the controller's reconfigure. */
    public FakeServices reexecuted(String unit) {
        if (active.contains(unit)) {
            pids.put(unit, ++lastPid);
            started.put(unit, boot += 1000);
        }
        return this;
    }

    /**
     * {@code unit} re-executed with a process that started a second before now: its PID is new, but
     * it read its files before the last write (systemd learnt the PID late).
     */
    public FakeServices reexecutedBefore(String unit) {
        pids.put(unit, ++lastPid);
        started.put(unit, boot - 1000);
        return this;
    }

    @Override
    public java.util.OptionalLong mainStartedMillis(String unit) {
        mainPid(unit);
        return active.contains(unit) && started.containsKey(unit)
                ? java.util.OptionalLong.of(started.get(unit))
                : java.util.OptionalLong.empty();
    }

    @Override
    public long bootMillis() {
        return boot += 1000;
    }

    /** {@code unit}'s re-execution fails from now on (its parent says "reconfigure failed" and runs on). */
    public FakeServices reexecFails(String unit) {
        rereadFails.add(unit);
        return this;
    }

    private static String fresh() {
        return java.util.UUID.randomUUID().toString().replace("-", "");
    }

    /** Marks {@code unit} active in a new invocation, as systemd does at each start; one asked for sets NRestarts to 0. */
    private void activated(String unit) {
        restarts.remove(unit);
        active.add(unit);
        results.remove(unit);
        autoRestarting.remove(unit);
        invocations.put(unit, fresh());
        pids.put(unit, ++lastPid);
        started.put(unit, boot += 1000);
    }

    @Override
    public void enable(String unit) {
        log.add("enable " + unit);
        enabled.add(unit);
    }

    @Override
    public void start(String unit) throws SystemException {
        log.add("start " + unit);
        fail(unit, "start");
        activated(unit);
    }

    @Override
    public void reread(String unit) throws SystemException {
        log.add("reread " + unit);
        fail(unit, "reread");
        if (!rereadFails.contains(unit)) {
            reexecuted(unit);
        }
    }

    @Override
    public void restart(String unit) throws SystemException {
        if (killing.remove(unit)) {
            throw new IllegalStateException("the agent was killed in systemctl restart " + unit);
        }
        log.add("restart " + unit);
        fail(unit, "restart");
        activated(unit);
    }

    private void fail(String unit, String verb) throws SystemException {
        if (failing.contains(unit)) {
            active.remove(unit);
            throw new SystemException(
                    "systemctl %s %s failed (exit 1): Job for %s.service failed because the control process exited with error code."
                            .formatted(verb, unit, unit));
        }
    }

    @Override
    public void stop(String unit) {
        log.add("stop " + unit);
        active.remove(unit);
    }

    @Override
    public void disable(String unit) {
        log.add("disable " + unit);
        enabled.remove(unit);
    }

    @Override
    public void reload() {
        log.add("daemon-reload");
    }
}
