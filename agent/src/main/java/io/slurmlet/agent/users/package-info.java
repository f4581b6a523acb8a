/**
 * The users step: the cluster's accounts as Linux users on this machine where the settings' users
 * are {@code "slurmlet"}: a login, UID and GID, a home of its own and the account's SSH keys.
 * {@link UsersDiff} is its pure half, which the leader's preview runs too; {@link UsersStep} observes
 * and acts. It uses reconcile and system, and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.users;
