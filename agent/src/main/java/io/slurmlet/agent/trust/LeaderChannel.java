package io.slurmlet.agent.trust;

/**
 * Where the leader's agents' channel listens, for the parts of this agent that need it: the node
 * role on the leader's own machine joins there, and {@code ctl slurm join-token} prints it.
 */
public interface LeaderChannel {

    /** The port the agents' channel listens on; 0 before it does (or where this agent is no leader). */
    int agentPort();

    /** The address agents reach the leader at: the first advertised name, else this machine's host name. */
    String advertisedUrl();
}
