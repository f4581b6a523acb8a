/**
 * The node role, on every machine: {@link NodeAgent} wires it; {@link PlanPoller} joins the leader,
 * reports the machine's facts and long-polls its plan over {@link LeaderLink}; {@link StepRunner}
 * applies the plan through the steps on a thread of its own; {@link StatusPoster} tells the leader
 * what each step did; {@link NodeState} keeps the credential and the last plan between starts.
 * {@link NodeWiring} is the one place that names the steps, in their order, and builds them on the
 * real ports. It uses the steps' packages, reconcile, facts, trust, store (the election), system and
 * config, and nothing of the leader's or the REST API's: it reaches the leader only over the agents'
 * channel (ArchitectureTest).
 */
package io.slurmlet.agent.node;
