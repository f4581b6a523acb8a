package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.model.facts.NodeFacts;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/**
 * The machines' facts as their agents reported them over the agents' channel ({@link AgentChannel}),
 * each with its own credential: the admin API only reads them.
 */
@Path("/v1/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodesResource {

    @Inject
    Inventory inventory;

    @GET
    public Map<String, NodeFacts> all() {
        return inventory.all();
    }
}
