package io.slurmlet.agent.system;

/** systemd units, as the reconcile steps need them. Failures say which unit and what systemctl printed. */
public interface Services {

    boolean isEnabled(String unit) throws SystemException;

    boolean isActive(String unit) throws SystemException;

    void enable(String unit) throws SystemException;

    void start(String unit) throws SystemException;

    void restart(String unit) throws SystemException;
}
