/**
 * The packages step: the packages the plan names, installed through the machine's package manager,
 * never removed. {@link PackagesDiff} is its pure half, which the leader's preview runs too;
 * {@link PackagesStep} asks what is missing and installs it. It uses reconcile and system, and
 * neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.packages;
