package io.slurmlet.agent.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.AccountsStore;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.SettingsAdmission;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.SettingsStore.Result;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.plan.Preview;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsJson.BadJson;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.settings.SlurmSettings;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The leader's settings: read them, replace them (PUT, naming the revision read), change some keys
 * (PATCH, a JSON merge patch), lend and unlend single nodes. A refused change leaves the store as
 * it was and says every problem. Every write takes {@code ?dry_run=true}: judged the same way
 * (If-Match, problems), nothing stored, and answered with what each machine would do
 * ({@link SettingsPreview}), so a change can be seen before it is made.
 */
@Path("/v1/slurm")
@Produces(MediaType.APPLICATION_JSON)
public class SettingsResource {

    static final String MERGE_PATCH_JSON = "application/merge-patch+json";
    /** The query parameter that asks for a preview instead of a write. */
    static final String DRY_RUN = "dry_run";

    private static final Pattern REVISION_TAG = Pattern.compile("(?:W/)?\"?(\\d{1,18})\"?");

    @Inject
    SettingsStore store;

    @Inject
    Inventory inventory;

    @Inject
    NodeReports reports;

    @Inject
    AgentConfig config;

    @Inject
    LendingBook lending;

    @Inject
    AccountsStore accounts;

    @Inject
    PlanPublisher plans;

    @Inject
    SettingsAdmission admission;

    @GET
    @Path("/settings")
    public Response get() {
        return ok(store.current());
    }

    @PUT
    @Path("/settings")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response put(
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, @QueryParam(DRY_RUN) String dryRun, byte[] body)
            throws IOException {
        boolean preview = dryRun(dryRun);
        OptionalLong expected = revision(ifMatch);
        if (ifMatch == null) {
            return Answers.error(
                    428,
                    ApiError.of("a PUT replaces every setting, so it must say which revision it read: "
                            + "send \"If-Match\" with the ETag of GET /v1/slurm/settings, as If-Match: \"%d\""
                                    .formatted(store.current().revision())));
        }
        SlurmSettings replacement = SettingsJson.toSettings(SettingsJson.readObject(limit(body)));
        return write(expected, current -> replacement, preview);
    }

    @PATCH
    @Path("/settings")
    @Consumes({MERGE_PATCH_JSON, MediaType.APPLICATION_JSON})
    public Response patch(
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, @QueryParam(DRY_RUN) String dryRun, byte[] body)
            throws IOException {
        boolean preview = dryRun(dryRun);
        OptionalLong expected = revision(ifMatch);
        JsonNode patch = SettingsJson.readObject(limit(body));
        return write(
                expected,
                current -> SettingsJson.toSettings(
                        SettingsJson.mergePatch(SettingsJson.STRICT.valueToTree(current), patch)),
                preview);
    }

    @POST
    @Path("/lent/{node}")
    public Response lend(
            @PathParam("node") String node,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch,
            @QueryParam(DRY_RUN) String dryRun)
            throws IOException {
        boolean preview = dryRun(dryRun);
        return write(
                revision(ifMatch),
                changeLent(lent -> {
                    if (!lent.contains(node)) {
                        lent.add(node);
                    }
                }),
                preview);
    }

    @DELETE
    @Path("/lent/{node}")
    public Response unlend(
            @PathParam("node") String node,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch,
            @QueryParam(DRY_RUN) String dryRun)
            throws IOException {
        boolean preview = dryRun(dryRun);
        return write(revision(ifMatch), changeLent(lent -> lent.remove(node)), preview);
    }

    /**
     * The one way every write goes: {@code change} stored, or, for a dry run, judged by the same
     * rules and shown as what each machine would do, with nothing stored.
     */
    private Response write(OptionalLong expected, UnaryOperator<SlurmSettings> change, boolean dryRun)
            throws IOException {
        if (!dryRun) {
            return answer(store.update(expected, change, admission));
        }
        Result judged = store.dryRun(expected, change, admission);
        if (judged instanceof Result.WouldStore would) {
            SettingsPreview preview = Preview.of(
                    would.current(),
                    would.next(),
                    Preview.Cluster.of(inventory.all(), observed(would.current().settings()))
                            .withSlurmNodes(reports.slurmNodes())
                            .withUnderWay(lending.underWay())
                            .withKnown(admission.known(would.current().settings()))
                            .withAccounts(accounts.current().accounts())
                            .withMemoryClasses(lending.memoryClasses())
                            .withArtifacts(plans.artifacts()));
            return Response.ok(preview)
                    .tag(new EntityTag(Long.toString(would.current().revision())))
                    .build();
        }
        return answer(judged);
    }

    /**
     * What each machine reported of itself, for a dry run, with the jobs the controller's agent last
     * saw there as well (it knows a job before its slurmstepd starts; the machine's report may be older).
     */
    private Map<String, Observed> observed(SlurmSettings current) {
        Map<String, Observed> seen = new TreeMap<>(reports.observed());
        for (String node : inventory.all().keySet()) {
            Observed own = seen.getOrDefault(node, Observed.NOTHING);
            Set<String> jobs = new TreeSet<>(own.jobs());
            reports.jobsReportedBy(current.controller(), n -> n.equals(node)).forEach(j -> jobs.add(j.split(" ")[0]));
            seen.put(
                    node,
                    own.withJobs(
                            jobs.stream().filter(j -> j.matches("[0-9]{1,12}")).toList()));
        }
        return seen;
    }

    /** {@code ?dry_run=}: true or false only, so that a misspelt value never stores what was meant as a preview. */
    static boolean dryRun(String value) {
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw new BadJson("dry_run \"%s\" is not true or false: send ?dry_run=true to see what the change would do, "
                        .formatted(value.length() > 40 ? value.substring(0, 40) + "…" : value)
                + "or leave it out to make the change");
    }

    private static UnaryOperator<SlurmSettings> changeLent(Consumer<List<String>> edit) {
        return current -> {
            List<String> lent = new ArrayList<>(current.lent());
            edit.accept(lent);
            return current.withLent(lent);
        };
    }

    private byte[] limit(byte[] body) {
        return Answers.limit(body, config.leader().maxBodyBytes(), "the settings");
    }

    /** The revision an If-Match header names; empty for none or {@code *}. */
    static OptionalLong revision(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank() || ifMatch.strip().equals("*")) {
            return OptionalLong.empty();
        }
        Matcher m = REVISION_TAG.matcher(ifMatch.strip());
        if (!m.matches()) {
            throw new BadJson(
                    "If-Match %s is not a revision: send the ETag of GET /v1/slurm/settings, as If-Match: \"7\""
                            .formatted(
                                    ifMatch.strip().length() > 40
                                            ? "header"
                                            : "\"" + ifMatch.strip().replace("\"", "") + "\""));
        }
        return OptionalLong.of(Long.parseLong(m.group(1)));
    }

    private static Response answer(Result result) {
        if (result instanceof Result.Accepted a) {
            return ok(a.document());
        }
        if (result instanceof Result.Conflict c) {
            return Answers.error(
                    409,
                    new ApiError(
                            ("the settings changed since revision %d, which this change was based on; "
                                            + "they are at revision %d now: read them again and redo the change")
                                    .formatted(c.expected(), c.current().revision()),
                            List.of(),
                            c.current().revision()));
        }
        Result.Refused r = (Result.Refused) result;
        return Answers.error(
                400,
                new ApiError(
                        "the settings were not changed: %d problem%s"
                                .formatted(r.problems().size(), r.problems().size() == 1 ? "" : "s"),
                        r.problems(),
                        null));
    }

    private static Response ok(SettingsDocument doc) {
        return Response.ok(doc)
                .tag(new EntityTag(Long.toString(doc.revision())))
                .build();
    }
}
