package io.slurmlet.agent.system;

import java.time.Instant;
import java.util.Optional;

/** systemd units, as the reconcile steps need them. Failures say which unit and what systemctl printed. */
public interface Services {

    boolean isEnabled(String unit) throws SystemException;

    boolean isActive(String unit) throws SystemException;

    /**
     * When {@code unit} last became active (systemd's ActiveEnterTimestamp, to the microsecond):
     * what a daemon running now has read its files at. Empty when it has not been active since boot.
     */
    Optional<Instant> activeSince(String unit) throws SystemException;

    void enable(String unit) throws SystemException;

    void start(String unit) throws SystemException;

    void restart(String unit) throws SystemException;

    /** Stops a unit: only for units slurmlet itself made (mounts), never Slurm's daemons. */
    void stop(String unit) throws SystemException;

    /** Has systemd read unit files written or removed. */
    void reload() throws SystemException;
}
