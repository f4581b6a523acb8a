/**
 * The node's steps as one graph ({@link StepGraph}): their order, what each runs after and waits
 * for, and each one's dry run. The node role's runner runs its steps in this order; the leader's
 * preview walks the same nodes. Shared by both roles, it uses neither (ArchitectureTest).
 */
package io.slurmlet.agent.steps;
