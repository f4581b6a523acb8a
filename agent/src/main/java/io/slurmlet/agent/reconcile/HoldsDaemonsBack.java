package io.slurmlet.agent.reconcile;

/**
 * A step whose last pass may have left Slurm's daemons as they were rather than as the plan has
 * them (a plugin its plugstack.conf requires is missing here): the daemon watch leaves them alone
 * while it does, since a daemon it started would fail on the plugin.
 */
public interface HoldsDaemonsBack {

    /** Whether the last look held the daemons back from the plan. */
    boolean holdsDaemonsBack();
}
