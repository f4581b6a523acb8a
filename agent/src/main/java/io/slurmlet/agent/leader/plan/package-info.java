/**
 * From the settings and what every agent reported to one plan a machine: {@link Planner}, pure, so
 * an unchanged plan is never sent again; {@link PlanBook}, the published plans with their revisions,
 * which answers the agents' long polls; {@link Preview}, which runs every step's pure diff against
 * what each machine last reported, so a dry run lists what the agents will do. {@link Reviews} keeps
 * the last write's planning for the next, {@link Wave} times how long a change takes to reach the
 * machines. As the rest of the leader, it uses neither the API, nor the node role, nor a step, only
 * the steps' diffs and Slurm's file rendering (ArchitectureTest).
 */
package io.slurmlet.agent.leader.plan;
