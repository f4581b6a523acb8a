/**
 * The slurm and node-states steps and what they know of Slurm: {@link SlurmDiff} and {@link SlurmStep}
 * keep Slurm's files as the plan has them and slurmctld and slurmd running, reconfiguring or
 * restarting only where {@link ReconfigureTable} says the release needs it (the diff composed of
 * {@link Retiring}, {@link FileWrites} and {@link DaemonActions}; the step keeping what it owes the
 * daemons in {@link OwedJournal}, and each restart behind {@link LaunchGate}); on the controller,
 * {@link NodeStatesDiff} and {@link NodeStatesStep} keep Slurm's node states as lending wants them.
 * Beside them: Slurm's releases and their skew rules, host lists, the release that wrote slurmctld's
 * saved state, and the jobs running on this machine; the files themselves are rendered in
 * {@code slurm.conf} below. It uses reconcile, system and the containers step's diff, and neither role
 * nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.slurm;
