/**
 * The ports on a real Linux machine: {@link LinuxCommands} ({@code ProcessBuilder}, an environment
 * made from nothing, a deadline), {@link LinuxFiles}, {@link LinuxHostFiles}, {@link SystemdServices},
 * {@link AptPackages} and {@link DnfPackages}, and {@link LinuxUsers}. It uses only the system
 * package's interfaces. The node role builds the steps on these, and the leader runs the site's
 * commands (the lending hooks, the accounts' sync) through {@link LinuxCommands}; the steps themselves
 * know only the interfaces.
 */
package io.slurmlet.agent.system.linux;
