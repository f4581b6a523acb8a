/**
 * The ports: every side effect the agent has on its machine goes through one of these small
 * interfaces ({@link Files}, {@link Commands}, {@link Services}, {@link Packages}, {@link Users},
 * {@link HostFiles}), so that each step is tested against a fake that logs what it was asked. A
 * command is an argv with a deadline, never a shell line; a file is written whole and atomically
 * ({@link AtomicFile}); a failure names the command and what it printed ({@link CommandFailed},
 * {@link SystemException}). It uses no other package of the agent; {@code system.linux} implements it.
 */
package io.slurmlet.agent.system;
