package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.model.api.NodeLending;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * Every node's lending: its phase, since when, what it waits for, its last error, and Slurm's view
 * of it. {@code ctl slurm nodes} shows it; {@code ctl slurm lend --wait} follows it.
 */
@Path("/v1/slurm/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class LendingResource {

    @Inject
    LendingEngine lending;

    @GET
    public List<NodeLending> nodes() {
        return lending.view();
    }
}
