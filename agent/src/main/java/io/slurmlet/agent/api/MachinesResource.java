package io.slurmlet.agent.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.text.Text;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * The machines that have joined, and those removed. Removing one is evicting it: its name is
 * refused from then on (kept in the leader's store, {@code removed/NODE}), its credential and the
 * join token it joined with are revoked, and its facts and reports forgotten; a report of its
 * already on the way is refused too. Only an admin lets the name join again ({@code allow}): a
 * reinstalled machine, or another one given the name.
 */
@Path("/v1/machines")
@Produces(MediaType.APPLICATION_JSON)
public class MachinesResource {

    private static final Logger LOG = Logger.getLogger(MachinesResource.class);
    /** What every removal's answer says of the munge key, which the machine held and may have kept. */
    static final String MUNGE_KEY =
            "the munge key it held is still the cluster's: if the machine is not trusted, roll a new one to every machine with ctl slurm munge-key rotate";

    /** The machines: those joined, by name, and those removed (refused until allowed), apart. */
    @RegisterForReflection
    public record Machines(
            @JsonProperty("machines") List<String> machines,
            @JsonProperty("removed") List<RemovedMachine> removed) {}

    /**
     * A machine removed, as listed.
     *
     * @param joinToken the id of the join token revoked with it; empty for none known
     */
    @RegisterForReflection
    public record RemovedMachine(
            @JsonProperty("node") String node,
            @JsonProperty("removed") String removed,
            @JsonProperty("by") String by,
            @JsonProperty("join_token") String joinToken) {}

    /**
     * What a removal did, and the sentences that say it ({@code notes}, one a line, as ctl prints them).
     *
     * @param joinToken        the id of the join token the machine joined with; empty where its credential
     *                         does not know it (made before slurmlet kept it, or on the leader's own machine)
     * @param joinTokenRevoked whether that token was revoked now (not: none known, expired and forgotten, revoked before)
     */
    @RegisterForReflection
    public record Evicted(
            @JsonProperty("node") String node,
            @JsonProperty("credential_revoked") boolean credentialRevoked,
            @JsonProperty("facts_forgotten") boolean factsForgotten,
            @JsonProperty("join_token") String joinToken,
            @JsonProperty("join_token_revoked") boolean joinTokenRevoked,
            @JsonProperty("notes") List<String> notes) {}

    @Inject
    AgentCredentials credentials;

    @Inject
    JoinTokens joinTokens;

    @Inject
    Inventory inventory;

    @Inject
    NodeReports reports;

    @Inject
    SettingsStore settings;

    @GET
    public Machines list() {
        List<RemovedMachine> removed = new ArrayList<>();
        credentials
                .removed()
                .forEach((node, r) -> removed.add(new RemovedMachine(node, r.removed(), r.by(), r.joinToken())));
        return new Machines(List.copyOf(new TreeSet<>(credentials.machines())), removed);
    }

    @DELETE
    @Path("/{node}")
    public Response remove(@PathParam("node") String node, @Context HttpServerRequest http) throws IOException {
        var bad = SlurmSettings.nodeNameProblem("node", node);
        if (bad.isPresent()) {
            return Response.status(400)
                    .entity(new ApiError(bad.get().message(), List.of(bad.get()), null))
                    .build();
        }
        List<String> jobs = reports.jobsReportedBy(settings.current().settings().controller(), node::equals);
        if (!jobs.isEmpty()) {
            String message = ("%s runs %d job%s (%s): removing it would drop it from slurm.conf and end them; "
                            + "unlend it (ctl slurm unlend %s --wait) and remove it once they have ended")
                    .formatted(
                            node,
                            jobs.size(),
                            jobs.size() == 1 ? "" : "s",
                            String.join(", ", jobs.size() > 5 ? jobs.subList(0, 5) : jobs),
                            node);
            return Response.status(409)
                    .entity(new ApiError(message, List.of(new Problem("node", node, message)), null))
                    .build();
        }
        boolean joined = credentials.joinedAs(node).filter(node::equals).isPresent();
        if (!joined && !inventory.has(node)) {
            var removals = credentials.removed();
            Optional<String> removed = credentials.removedAs(node).filter(removals::containsKey);
            String message = removed.isPresent()
                    ? "%s was removed already (at %s): its name stays refused until an admin allows it: ctl slurm machines allow %s"
                            .formatted(
                                    removed.get(), removals.get(removed.get()).removed(), removed.get())
                    : "no machine %s has joined: ctl slurm machines list shows those that have"
                            .formatted(Text.quote(node));
            return Response.status(404)
                    .entity(new ApiError(message, List.of(new Problem("node", node, message)), null))
                    .build();
        }
        String by = JoinResource.caller(http);
        // The name is refused and the credential revoked first, under the lock joins take; the facts and
        // reports are forgotten after, under the locks their writes take, which ask the credential again.
        AgentCredentials.Removed done = credentials.remove(node, Instant.now(), by);
        boolean tokenRevoked = done.joinToken().isPresent()
                && joinTokens.revoke(done.joinToken().get());
        boolean forgotten = inventory.forget(node);
        reports.forget(node);
        LOG.infof(
                "machine %s removed by %s: its name refused until allowed, its credential %s, its join token %s, its facts %s",
                node,
                by,
                done.credentialRevoked() ? "revoked" : "(none)",
                done.joinToken()
                        .map(id -> id + (tokenRevoked ? " revoked" : " (expired or revoked before)"))
                        .orElse("(none known)"),
                forgotten ? "forgotten" : "(none)");
        List<String> notes = new ArrayList<>();
        notes.add(("removed %s: its credential %s, its facts %s; its name is refused until an admin allows it again "
                        + "(ctl slurm machines allow %s)")
                .formatted(
                        node,
                        done.credentialRevoked() ? "revoked" : "was revoked already",
                        forgotten ? "forgotten" : "were not kept",
                        node));
        notes.add(done.joinToken()
                .map(id -> tokenRevoked
                        ? ("join token %s, which it joined with, is revoked: no machine joins with it any more, and the machines that "
                                        + "joined with it keep their credentials")
                                .formatted(id)
                        : "join token %s, which it joined with, had expired or was revoked already".formatted(id))
                .orElse("join token revoked: none (its credential does not say which it joined with)"));
        notes.add(MUNGE_KEY);
        return Response.ok(new Evicted(
                        node,
                        done.credentialRevoked(),
                        forgotten,
                        done.joinToken().orElse(""),
                        tokenRevoked,
                        notes))
                .build();
    }

    /** Lets a removed machine's name join again. */
    @POST
    @Path("/{node}/allow")
    public Response allow(@PathParam("node") String node, @Context HttpServerRequest http) throws IOException {
        var bad = SlurmSettings.nodeNameProblem("node", node);
        if (bad.isPresent()) {
            return Response.status(400)
                    .entity(new ApiError(bad.get().message(), List.of(bad.get()), null))
                    .build();
        }
        Optional<String> allowed = credentials.allow(node);
        if (allowed.isEmpty()) {
            String message =
                    ("%s was not removed, so nothing is allowed: ctl slurm machines list shows the removed names; "
                                    + "a machine that has joined is removed with ctl slurm machines remove")
                            .formatted(Text.quote(node));
            return Response.status(404)
                    .entity(new ApiError(message, List.of(new Problem("node", node, message)), null))
                    .build();
        }
        LOG.infof(
                "machine %s allowed again by %s: its name may join with a join token",
                allowed.get(), JoinResource.caller(http));
        return Response.ok(Map.of(
                        "node",
                        allowed.get(),
                        "allowed",
                        true,
                        "notes",
                        List.of(
                                "allowed %s: it may join again with a join token ('ctl slurm join-token' prints the line that joins it)"
                                        .formatted(allowed.get()))))
                .build();
    }
}
