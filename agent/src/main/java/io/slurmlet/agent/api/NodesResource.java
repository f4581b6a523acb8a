package io.slurmlet.agent.api;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.FactsCheck;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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

    @Inject
    AgentConfig config;

    @GET
    public Map<String, NodeFacts> all() {
        return inventory.all();
    }

    static ApiError refusal(List<Problem> problems) {
        return new ApiError("the facts were not stored: %d problem%s"
                .formatted(problems.size(), problems.size() == 1 ? "" : "s"), problems, null);
    }

    /** {@code reported} under the name of the machine that sent it. */
    static NodeFacts named(String node, NodeFacts reported) {
        return new NodeFacts(node, reported.address(), reported.cpus(), reported.boards(), reported.sockets(),
                reported.coresPerSocket(), reported.threadsPerCore(), reported.memoryMiB(), reported.gpus(), reported.os(),
                reported.slurmVersion());
    }
}
