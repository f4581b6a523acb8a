package io.slurmlet.agent.trust;

import java.net.URI;
import java.util.Optional;

/**
 * How the node role of a leader-eligible agent finds the leader when the leader-eligible agents
 * elect one (etcd): the leader role answers from its election, so that the node role follows
 * whichever agent leads and names nothing of the store.
 */
public interface LeaderFinder {

    /** Whether an election names the leader: false with the file store, whose one leader is this agent. */
    boolean elected();

    /**
     * The agents' channel of the agent the election names as leader, asked anew at each call: empty
     * while it names none, or names {@code self} (an agent started again right after it lost the lead
     * may still read its own record until the lease lapses), or names no channel over https.
     */
    Optional<URI> leaderOtherThan(String self);
}
