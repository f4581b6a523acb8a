package io.slurmlet.agent.trust;

/**
 * Where the leader's agents' channel listens, for the parts of this agent that need it: the node
 * role on the leader's own machine joins there, and {@code ctl slurm join-token} prints it.
 */
public interface LeaderChannel {

    /**
     * Where on the agents' channel the leader takes admin requests handed on to it with the cluster's
     * admin token (a standby's, or a standby's node role asking for its join token), answered from
     * its own admin API: the API's path follows.
     */
    String ADMIN_FORWARD = "/v1/admin-forward";

    /**
     * The header of each plan answer that tells an agent, in whole seconds, the window its
     * reconnection spreads over once it lost the leader ({@code slurmlet.leader.reconnect-rate}).
     */
    String RECONNECT_WINDOW = "Slurmlet-Reconnect-Window";

    /**
     * The header of each answer to a machine's status report that tells its agent the leader's clock
     * when it answered, in milliseconds since the epoch: the agent measures its own clock against it
     * (a munge key's switch at one moment is at the leader's moment, however far its own clock is off).
     */
    String LEADER_TIME = "Slurmlet-Leader-Time";

    /** The port the agents' channel listens on; 0 before it does (or where this agent is no leader). */
    int agentPort();

    /** The address agents reach the leader at: the first advertised name, else this machine's host name. */
    String advertisedUrl();
}
