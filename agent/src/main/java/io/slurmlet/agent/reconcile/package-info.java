/**
 * What every reconcile step is made of: {@link Step}, its {@link Outcome} (unchanged, changed or
 * failed, with a sentence for status), and {@link Reconciler}, a step in four parts: {@code desired}
 * (pure, from the plan), {@code observe} (through the ports, changing nothing), {@code diff} (pure:
 * the {@link Action}s, the same function a preview runs on the leader) and {@code act}.
 * {@link Reports} and {@link HoldsDaemonsBack} are what a step can do beyond that (put what it saw
 * in the machine's report; hold Slurm's daemons back from the plan), so that no caller looks a step up
 * by its class. {@link ManagedFiles} and {@link FileDiffs} serve every step that keeps a whole file;
 * {@link Failpoints} lets the crash tests hold the agent between two actions. It uses only system,
 * and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.reconcile;
