package io.slurmlet.agent.api;

import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.text.Text;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The machines that have joined. Removing one revokes its credential (its next call is refused)
 * and forgets its facts and reports, so that its name can join again: a reinstalled machine, or
 * one that is gone.
 */
@Path("/v1/machines")
@Produces(MediaType.APPLICATION_JSON)
public class MachinesResource {

    private static final Logger LOG = Logger.getLogger(MachinesResource.class);

    @Inject
    AgentCredentials credentials;

    @Inject
    Inventory inventory;

    @Inject
    NodeReports reports;

    @Inject
    SettingsStore settings;

    @GET
    public Map<String, List<String>> list() {
        return Map.of("machines", List.copyOf(new TreeSet<>(credentials.machines())));
    }

    @DELETE
    @Path("/{node}")
    public Response remove(@PathParam("node") String node, @Context HttpServerRequest http) throws IOException {
        var bad = SlurmSettings.nodeNameProblem("node", node);
        if (bad.isPresent()) {
            return Response.status(400).entity(new ApiError(bad.get().message(), List.of(bad.get()), null)).build();
        }
        List<String> jobs = reports.jobsReportedBy(settings.current().settings().controller(), node::equals);
        if (!jobs.isEmpty()) {
            String message = ("%s runs %d job%s (%s): removing it would drop it from slurm.conf and end them; "
                    + "unlend it (ctl slurm unlend %s --wait) and remove it once they have ended").formatted(node, jobs.size(),
                    jobs.size() == 1 ? "" : "s", String.join(", ", jobs.size() > 5 ? jobs.subList(0, 5) : jobs), node);
            return Response.status(409).entity(new ApiError(message, List.of(new Problem("node", node, message)), null)).build();
        }
        boolean revoked = credentials.revoke(node);
        boolean forgotten = inventory.forget(node);
        reports.forget(node);
        if (!revoked && !forgotten) {
            return Response.status(404).entity(ApiError.of("no machine %s has joined: ctl slurm machines list shows those that have"
                    .formatted(Text.quote(node)))).build();
        }
        LOG.infof("machine %s removed by %s: its credential %s, its facts %s", node, JoinResource.caller(http),
                revoked ? "revoked" : "(none)", forgotten ? "forgotten" : "(none)");
        return Response.ok(Map.of("node", node, "credential_revoked", revoked, "facts_forgotten", forgotten)).build();
    }
}
