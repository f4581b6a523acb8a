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
 * What the agents report about their machines. Until agents join with credentials of their own
 * (the join step), a report carries the admin token, as any /v1 call.
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

    @PUT
    @Path("/{node}/facts")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response report(@PathParam("node") String node, byte[] body) throws IOException {
        NodeFacts reported = SettingsJson.toValue(SettingsJson.readObject(
                SettingsResource.limit(body, config.leader().maxBodyBytes(), "the machine's facts")), NodeFacts.class);
        List<Problem> problems = new java.util.ArrayList<>(FactsCheck.problems(node, reported));
        // Host names ignore case: facts for GPU001 beside gpu001's would be a second NodeName line for one machine.
        inventory.all().keySet().stream().filter(known -> known.equalsIgnoreCase(node) && !known.equals(node)).findFirst()
                .ifPresent(known -> problems.add(new Problem("node", node, "node %s is %s but for case, whose facts the leader has: host names ignore case; report them under %s"
                        .formatted(node, known, known))));
        if (!problems.isEmpty()) {
            return SettingsResource.error(400, refusal(problems));
        }
        NodeFacts named = named(node, reported);
        boolean changed = inventory.report(named);
        return Response.ok(Map.of("node", node, "changed", changed)).build();
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
