/**
 * The PAM step: pam_slurm_adopt in sshd's account stack on the machines that run slurmd and are not
 * the controller, so that a user gets in by ssh only while a job of theirs runs there, and the site's
 * stack put back where the plan no longer wants it. {@link PamDiff} is its pure half, which the
 * leader's preview runs too; {@link PamStep} observes and acts. It uses reconcile and system, and
 * neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.pam;
