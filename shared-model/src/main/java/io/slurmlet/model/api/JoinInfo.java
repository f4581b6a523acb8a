package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a site needs to join a machine: {@code ctl slurm join-token} prints {@link #command()}.
 *
 * @param leader  the address agents reach the leader at, as {@code https://n0:7818}
 * @param token   the join token
 * @param caHash  the pin of the cluster's CA, as {@code sha256:…}
 * @param command the line to run on the new machine
 */
public record JoinInfo(
        @JsonProperty("leader") String leader,
        @JsonProperty("token") String token,
        @JsonProperty("ca_hash") String caHash,
        @JsonProperty("command") String command) {

    @Override
    public String toString() {
        return "JoinInfo[" + leader + ", " + caHash + ", token not shown]";
    }
}
