/**
 * The agent's own configuration, {@link AgentConfig}: one {@code @ConfigMapping} read from
 * {@code /etc/slurmlet/agent.yaml} or {@code SLURMLET_*} environment variables. The Slurm
 * cluster's settings are not here: the leader stores them and {@code ctl slurm set} changes them.
 * Every package may read it; it uses no other package of the agent.
 */
package io.slurmlet.agent.config;
