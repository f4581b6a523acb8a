/**
 * The munge step: the cluster's key in {@code /etc/munge/munge.key} (0400, munge's) and munged
 * running on every machine with a Slurm role. {@link MungeDiff} is its pure half, which the leader's
 * preview runs too; {@link MungeStep} observes and acts through the ports. The key is in no outcome,
 * log, error or report. It uses reconcile and system, and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.munge;
