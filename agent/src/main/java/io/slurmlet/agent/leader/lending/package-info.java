/**
 * Lending nodes between the platform and Slurm: {@link Lending}, the pure rules from a node's
 * record, the settings' wish and slurmctld's view to the next record and the hook to run;
 * {@link LendingEngine}, the one thread on the leader that applies them; {@link LendingBook}, every
 * node's {@link LendingRecord} in the store; and {@link Hooks}, the site's drain and release commands.
 * Every change is in the store before it is acted on, and the planner hears of it there. As the rest
 * of the leader, it uses neither the API, nor the node role, nor a step (ArchitectureTest).
 */
package io.slurmlet.agent.leader.lending;
