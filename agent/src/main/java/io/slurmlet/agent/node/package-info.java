/**
 * The node role, on every machine: {@link NodeAgent} wires it on the machine's {@link Ports};
 * {@link PlanPoller} joins the leader ({@link Joining}), reports the machine's facts and long-polls
 * its plan over {@link LeaderLink}; {@link StepRunner}
 * applies the plan through the steps on a thread of its own; {@link StatusPoster} tells the leader
 * what each step did; {@link NodeState} keeps the credential and the last plan between starts.
 * {@link NodeWiring} is the one place that builds the steps on the real ports, in the order of
 * their graph ({@code steps.StepGraph}). It uses the steps' packages and their graph, reconcile,
 * facts, trust (where a leader-eligible machine finds its leader: {@code trust.LeaderFinder}),
 * system and config, and nothing of the store's, the leader's or the REST API's: it reaches the
 * leader only over the agents' channel (ArchitectureTest).
 */
package io.slurmlet.agent.node;
