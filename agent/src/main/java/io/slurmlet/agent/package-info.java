/**
 * The slurmlet agent, one program on every machine. Its node role ({@code node}) makes the
 * machine match the plan the leader gives it; on a leader-eligible machine its leader role
 * ({@code leader} and below, with the REST API in {@code api}) keeps the settings and plans every
 * machine. Each reconcile step has a package of its own (munge, slurm, storage, users, pam, packages,
 * containers) holding its pure diff and the step; every side effect goes through the ports in
 * {@code system}, implemented in {@code system.linux}. The dependencies go one way, as
 * ArchitectureTest checks: the node role uses nothing of the leader's or the API's, the leader
 * neither the API, nor the node role, nor a step (only the steps' pure diffs), and what both roles
 * share (trust, store, reconcile, system, facts and the steps' packages) uses neither role nor the API.
 */
package io.slurmlet.agent;
