package io.slurmlet.agent.trust;

import java.io.IOException;
import java.util.Optional;

/**
 * This agent's leader role as the rest of the agent sees it on a leader-eligible machine: whether it
 * leads and serves now, and the cluster's CA and admin token (a standby reads them from etcd,
 * sealed). The node role of such a machine joins and follows the leader with them; a standby hands
 * admin requests on with them.
 */
public interface LeaderRole {

    /** Whether this agent leads and serves: false on a standby, and in the second a new leader takes to open what it serves. */
    boolean serving();

    /** The cluster's CA and admin token as etcd holds them: empty with the file store, or before the first leader sealed them there. */
    Optional<ClusterKeys> clusterKeys() throws IOException;

    /** The cluster's CA (PEM) and admin token. */
    record ClusterKeys(byte[] caPem, String adminToken) {
        @Override
        public String toString() {
            return "ClusterKeys[CA and admin token not shown]";
        }
    }
}
