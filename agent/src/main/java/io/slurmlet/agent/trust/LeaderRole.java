package io.slurmlet.agent.trust;

import java.io.IOException;
import java.time.Duration;
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

    /**
     * The cluster's CA (certificate and key, PEM) and admin token. The key makes this machine's
     * own credential as a standby ({@link StandbyCredential#make}); the token is what ctl over TCP
     * presents to this standby.
     */
    record ClusterKeys(byte[] caPem, byte[] caKeyPem, String adminToken) {
        /** A credential of this standby's own, {@code node}, for handing requests to the leader. */
        public StandbyCredential standby(String node, Duration life) throws IOException {
            return StandbyCredential.make(caPem, caKeyPem, node, life);
        }

        @Override
        public String toString() {
            return "ClusterKeys[CA, its key and admin token not shown]";
        }
    }
}
