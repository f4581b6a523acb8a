package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The leader's answer to a machine that joined with the join token: the machine's own credential,
 * which it presents from then on. The one response that carries it; the leader keeps only its hash.
 *
 * @param node       the machine, as it will be known
 * @param credential its secret; never logged
 */
public record JoinReply(
        @JsonProperty("node") String node,
        @JsonProperty("credential") String credential) {

    @Override
    public String toString() {
        return "JoinReply[" + node + ", credential not shown]";
    }
}
