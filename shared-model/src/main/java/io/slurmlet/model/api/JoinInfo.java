package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a site needs to join a machine, made with a new join token: {@code ctl slurm join-token}
 * prints {@link #command()}.
 *
 * @param leader  the address agents reach the leader at, as {@code https://n0:7818}
 * @param token   the join token, shown this once
 * @param caHash  the pin of the cluster's CA, as {@code sha256:…}
 * @param command the line to run on the new machine
 * @param id      the token's id, which lists and revokes it
 * @param expires when the token stops working, as an ISO-8601 instant
 */
public record JoinInfo(
        @JsonProperty("leader") String leader,
        @JsonProperty("token") String token,
        @JsonProperty("ca_hash") String caHash,
        @JsonProperty("command") String command,
        @JsonProperty("id") String id,
        @JsonProperty("expires") String expires) {

    @Override
    public String toString() {
        return "JoinInfo[" + leader + ", " + caHash + ", " + id + " until " + expires + ", token not shown]";
    }
}
