package io.slurmlet.agent.system;

import java.util.List;
import java.util.Map;

/** systemd units, as the reconcile steps need them. Failures say which unit and what systemctl printed. */
public interface Services {

    boolean isEnabled(String unit) throws SystemException;

    boolean isActive(String unit) throws SystemException;

    /**
     * A unit's state as systemd has it: {@code active}, {@code activating}, {@code inactive},
     * {@code failed}…, its sub-state and the result of its last run ({@code success}, {@code signal},
     * {@code exit-code}, {@code core-dump}…), and how often systemd started it again by its own
     * Restart= since it was last started by hand or by slurmlet (NRestarts, systemd 235 and newer; a
     * start or restart that someone asks for sets it to 0).
     */
    record UnitState(String active, String sub, String result, int restarts) {

        /** A unit whose automatic restarts are not known (0). */
        public UnitState(String active, String sub, String result) {
            this(active, sub, result, 0);
        }

        /**
         * Running, or on its way (starting, reloading, stopping for a restart): not a daemon that is
         * down. A unit waiting to be started again by its own Restart= (sub-state auto-restart) is down.
         */
        public boolean up() {
            return !sub.equals("auto-restart")
                    && (active.equals("active")
                            || active.equals("activating")
                            || active.equals("reloading")
                            || active.equals("deactivating"));
        }

        /**
         * Ended by a failure (a signal, an exit code, a core dump), not stopped by someone: what the agent starts again.
         * Not one waiting for its own Restart= (slurmlet's drop-in: 1 s): systemd starts that one.
         */
        public boolean crashed() {
            return !up()
                    && !sub.equals("auto-restart")
                    && (active.equals("failed") || !result.isEmpty() && !result.equals("success"));
        }

        /** Down, and waiting for systemd to start it again by its own Restart=. */
        public boolean restarting() {
            return sub.equals("auto-restart");
        }

        /** What systemd says of it, as {@code failed (signal)}. */
        public String said() {
            return active + (result.isEmpty() || result.equals("success") ? "" : " (" + result + ")");
        }
    }

    /** Each unit's state, in one query. */
    Map<String, UnitState> states(List<String> units) throws SystemException;

    /**
     * The unit's current systemd invocation (InvocationID, 32 hex digits; systemd 232 and newer): a
     * new one each time it starts, so a daemon with another than before has been restarted since.
     * "" when it has never run since boot.
     */
    String invocation(String unit) throws SystemException;

    /**
     * The unit's main process as systemd has it now; "0" where none runs. Slurm's daemons re-execute
     * on a reconfigure from 24.05 on (a new process, which reads its files again, and says its PID
     * to systemd), so another PID than before is a daemon that read its files since.
     */
    String mainPid(String unit) throws SystemException;

    /**
     * When the unit's main process started, in milliseconds since the machine booted (as {@link
     * #bootMillis}); empty where none runs or it cannot be read. A process that started after a file
     * was written read that file at its start; one whose PID systemd learnt only after the write may
     * have started, and read it, before.
     */
    java.util.OptionalLong mainStartedMillis(String unit) throws SystemException;

    /** Milliseconds since the machine booted, now, on the clock of {@link #mainStartedMillis}. */
    long bootMillis() throws SystemException;

    void enable(String unit) throws SystemException;

    void start(String unit) throws SystemException;

    void restart(String unit) throws SystemException;

    /**
     * Has a running unit read its files again, as its ExecReload does ({@code systemctl reload}:
     * slurmd rereads slurm.conf on SIGHUP, as on the controller's reconfigure); a unit that does not
     * run is left as it is.
     */
    void reread(String unit) throws SystemException;

    /**
     * Stops a unit: units slurmlet itself made (mounts), and Slurm's daemons only where the plan
     * retires them and no job needs them.
     */
    void stop(String unit) throws SystemException;

    /** Has a unit no longer start at boot (a daemon the plan retires). */
    void disable(String unit) throws SystemException;

    /** Has systemd read unit files written or removed. */
    void reload() throws SystemException;
}
