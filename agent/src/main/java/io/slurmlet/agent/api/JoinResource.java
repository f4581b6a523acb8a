package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.JoinToken;
import io.slurmlet.agent.leader.LeaderStartup;
import io.slurmlet.agent.leader.Pki;
import io.slurmlet.model.api.JoinInfo;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * What a site needs to join a machine to the cluster: the leader's address for agents, the join
 * token and the CA's pin. The one admin call that returns the join token.
 */
@Path("/v1/join-token")
@Produces(MediaType.APPLICATION_JSON)
public class JoinResource {

    @Inject
    JoinToken joinToken;

    @Inject
    Pki pki;

    @Inject
    LeaderStartup leader;

    @GET
    public JoinInfo get() {
        String url = leader.advertisedUrl();
        String token = joinToken.file().reveal();
        String hash = pki.caHash();
        return new JoinInfo(url, token, hash,
                "slurmlet-agent join --leader %s --token %s --ca-hash %s".formatted(url, token, hash));
    }
}
