package io.slurmlet.agent.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.SettingsStore.Result;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.leader.plan.Preview;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsJson.BadJson;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.settings.Problem;
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
@jakarta.inject.Singleton // Quarkus REST's default, said: the last review is kept from one write to the next
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
    io.slurmlet.agent.leader.AccountsStore accounts;

    @Inject
    io.slurmlet.agent.containers.ArtifactTable artifacts;

    @Inject
    io.slurmlet.agent.leader.ContainerFiles containerFiles;

    @Inject
    io.slurmlet.agent.leader.PlanPublisher plans;

    /** Every machine's plans for the settings before and after a write, the last kept for the next write. */
    private final io.slurmlet.agent.leader.plan.Reviews reviews = new io.slurmlet.agent.leader.plan.Reviews();

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
            return error(
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
        SlurmSettings current = store.current().settings();
        SlurmSettings next;
        try {
            next = change.apply(current);
        } catch (RuntimeException e) {
            next = null; // the store judges it, and says what is wrong
        }
        if (next != null) {
            List<Problem> hurts = new ArrayList<>();
            // Read once for every check: the machines, the lendings under way, the nodes slurmctld knows.
            Map<String, io.slurmlet.model.facts.NodeFacts> machines = inventory.all();
            java.util.Set<String> underWay = lending.underWay();
            java.util.Set<String> known = known(current);
            List<String> gpuMachines = new ArrayList<>();
            if (next.check().isEmpty()) { // else the store refuses it, and says why
                // The plans of both settings, made once for every check that compares them.
                java.util.Set<Long> classes = lending.memoryClasses();
                Planner.Plans was = reviews.of(
                        current, machines, Planner.Lent.asWished(current, underWay, known, machines, classes));
                Planner.Plans will =
                        reviews.of(next, machines, Planner.Lent.asWished(next, underWay, known, machines, classes));
                hurts.addAll(whatTheControllerCannotRun(was, will));
                hurts.addAll(exportsUnderJobs(current, next, was, will));
                will.nodes().forEach((name, plan) -> {
                    if (plan.containers().install() && plan.containers().gpus()) {
                        gpuMachines.add(name);
                    }
                });
            }
            if (next.containers() && !current.containers()) {
                // Accepted only where it can take effect: every machine must be able to fetch pinned files.
                artifacts
                        .unusable(gpuMachines, heldFiles())
                        .ifPresent(why -> hurts.add(new Problem(
                                "containers",
                                "true",
                                "containers=true cannot take effect: " + why + "; nothing is stored")));
            }
            hurts.addAll(whatWouldEndJobs(
                    current,
                    next,
                    !current.enabled()
                            && !Planner.leaving(current, underWay, known, machines)
                                    .isEmpty()));
            if (!hurts.isEmpty()) {
                return answer(new Result.Refused(hurts));
            }
            List<Problem> tooLarge = tooLargeToSendBack(next);
            if (!tooLarge.isEmpty()) {
                return answer(new Result.Refused(tooLarge));
            }
        }
        if (!dryRun) {
            return answer(store.update(expected, change));
        }
        Result judged = store.dryRun(expected, change);
        if (judged instanceof Result.WouldStore would) {
            SettingsPreview preview = Preview.of(
                    would.current(),
                    would.next(),
                    new Preview.Cluster(
                            inventory.all(),
                            observed(would.current().settings()),
                            reports.slurmNodes(),
                            lending.underWay(),
                            known(would.current().settings()),
                            accounts.current().accounts(),
                            lending.memoryClasses(),
                            plans.artifacts()));
            return Response.ok(preview)
                    .tag(new EntityTag(Long.toString(would.current().revision())))
                    .build();
        }
        return answer(judged);
    }

    /**
     * A change that would end running jobs, refused with why and what to do: renaming the partition
     * while jobs run in it (Slurm ends the jobs of a partition that leaves slurm.conf, on 22.05,
     * 24.11 and 26.05: system-tests/slurm/FINDINGS.md, "Reconfigure or restart, per version"), or
     * moving or emptying the controller (its saved state holds them). Asked while slurmlet runs Slurm:
     * enabled, or disabled with nodes still leaving ({@code windingDown}). The jobs are the ones the
     * controller's agent last reported, and those a machine's agent saw running there since. The
     * controller's slurm step checks again before it takes the file (it waits while jobs are in a
     * partition that would go).
     */
    private List<Problem> whatWouldEndJobs(SlurmSettings current, SlurmSettings next, boolean windingDown) {
        List<Problem> problems = new ArrayList<>();
        if (!current.enabled() && !windingDown) {
            return problems; // no Slurm of slurmlet's runs: nothing to end
        }
        // Each machine's own look (every 2 s) knows a job the controller's last report may not have had yet.
        List<String> jobs = reports.jobsRunning(current.controller());
        List<io.slurmlet.model.observed.QueuedJob> queued = reports.jobsQueued(current.controller());
        if (!next.controller().equals(current.controller()) && (!jobs.isEmpty() || !queued.isEmpty())) {
            // The jobs live in the old slurmctld's state: a new one, elsewhere, knows none of them.
            problems.add(new Problem(
                    "controller",
                    next.controller(),
                    ("moving slurmctld from %s to %s would lose %s: the new "
                                    + "controller starts with none of them; move it once squeue shows none (%s)")
                            .formatted(
                                    current.controller(),
                                    next.controller().isEmpty() ? "nowhere" : next.controller(),
                                    jobsAnd(
                                            count(jobs, "it runs", false),
                                            count(
                                                    queued.stream()
                                                            .map(Object::toString)
                                                            .toList(),
                                                    "waiting in its queue",
                                                    queued.size()
                                                            >= io.slurmlet.model.observed.QueuedJob.REPORTED_AT_MOST)),
                                    queued.isEmpty() ? "ctl slurm unlend the nodes to let them drain" : WAITING_FIX)));
        }
        String was = current.partition(); // never empty: SlurmSettings gives the default
        String now = next.partition();
        // Its memory classes' partitions are renamed with it.
        List<String> waitingThere = queued.stream()
                .filter(j -> j.partitions().stream()
                        .anyMatch(p -> io.slurmlet.agent.slurm.conf.MemoryClasses.isOrBelongsTo(p, was)))
                .map(Object::toString)
                .toList();
        if (was.equals(now) || jobs.isEmpty() && waitingThere.isEmpty()) {
            return problems;
        }
        // Slurm 22.05 and 24.11 fail a queued job naming the partition even where it names another too (25.11 drops the
        // name then).
        problems.add(new Problem(
                "partition",
                now,
                ("renaming the partition %s to %s would end %s: Slurm ends the jobs of a "
                                + "partition that leaves slurm.conf; rename it once squeue shows none (%s)")
                        .formatted(
                                was,
                                now,
                                jobsAnd(
                                        count(jobs, "running in it", false),
                                        count(
                                                waitingThere,
                                                "waiting for it",
                                                queued.size()
                                                        >= io.slurmlet.model.observed.QueuedJob.REPORTED_AT_MOST)),
                                waitingThere.isEmpty()
                                        ? "ctl slurm unlend the nodes to let them drain"
                                        : WAITING_FIX)));
        return problems;
    }

    /** What to do about jobs that wait: once nodes are unlent they can never run. */
    private static final String WAITING_FIX =
            "let the waiting jobs run, or scancel them; ctl slurm unlend the nodes to let the " + "running ones drain";

    /**
     * {@code the 2 jobs running in it (17 of alice, 18 of bob)}, the first five named; empty for none.
     *
     * @param partial from a queue the controller reported only in part ({@link
     *                io.slurmlet.model.observed.QueuedJob#REPORTED_AT_MOST}): "at least"
     */
    private static String count(List<String> jobs, String where, boolean partial) {
        if (jobs.isEmpty()) {
            return "";
        }
        String listed = String.join(", ", jobs.size() > 5 ? jobs.subList(0, 5) : jobs) + (jobs.size() > 5 ? ", …" : "");
        return "%s %d job%s %s (%s)"
                .formatted(partial ? "at least" : "the", jobs.size(), jobs.size() == 1 ? "" : "s", where, listed);
    }

    private static String jobsAnd(String running, String queued) {
        return running.isEmpty() ? queued : queued.isEmpty() ? running : running + " and " + queued;
    }

    /**
     * The nodes slurmctld has a record of: those the lending engine noted, and those the controller's
     * agent showed since (the engine notes them at its next look, up to a second later).
     */
    private java.util.Set<String> known(SlurmSettings current) {
        java.util.Set<String> known = new java.util.TreeSet<>(lending.knownToSlurm());
        known.addAll(reports.slurmNodesReportedBy(current.controller()));
        return known;
    }

    /**
     * What each machine reported of itself, for a dry run, with the jobs the controller's agent last
     * saw there as well (it knows a job before its slurmstepd starts; the machine's report may be older).
     */
    private Map<String, io.slurmlet.model.observed.Observed> observed(SlurmSettings current) {
        Map<String, io.slurmlet.model.observed.Observed> seen = new java.util.TreeMap<>(reports.observed());
        for (String node : inventory.all().keySet()) {
            io.slurmlet.model.observed.Observed own =
                    seen.getOrDefault(node, io.slurmlet.model.observed.Observed.NOTHING);
            java.util.Set<String> jobs = new java.util.TreeSet<>(own.jobs());
            reports.jobsReportedBy(current.controller(), n -> n.equals(node)).forEach(j -> jobs.add(j.split(" ")[0]));
            seen.put(
                    node,
                    own.withJobs(
                            jobs.stream().filter(j -> j.matches("[0-9]{1,12}")).toList()));
        }
        return seen;
    }

    /**
     * What the controller's reported Slurm version cannot run, refused when written rather than
     * stored and then reported: a slurm_conf key its release does not know, a setting it does not
     * support. Only what the change brings: a problem the current settings have already never holds
     * up another change.
     */
    private static List<Problem> whatTheControllerCannotRun(Planner.Plans was, Planner.Plans will) {
        List<Problem> now = was.problems();
        return will.problems().stream()
                .filter(p -> p.key().startsWith("slurm_conf.") || p.key().startsWith("experimental."))
                .filter(p -> !now.contains(p))
                .toList();
    }

    /**
     * A machine that would stop exporting the shared storage to a machine that mounts it (shared.server
     * moved or emptied, shared.path emptied, slurmlet disabled, the machine taken out of the nodes)
     * while a job runs there: the job's files would go from under it. The clients themselves never
     * unmount under a job (their storage step waits), but the server cannot tell who still uses its
     * export, so the change is refused. The jobs are those each machine reported of itself (its agent
     * looks every 2 s and says when they change) and those the controller's agent last saw there.
     */
    private List<Problem> exportsUnderJobs(
            SlurmSettings current, SlurmSettings next, Planner.Plans was, Planner.Plans will) {
        Map<String, io.slurmlet.model.observed.Observed> seen = reports.observed();
        List<Problem> problems = new ArrayList<>();
        Map<String, List<String>> controllerSaw = null; // read once, where a client's export is cut
        for (NodePlan server : was.nodes().values()) {
            if (!(server.storage() instanceof StoragePlan.Export export)) {
                continue;
            }
            NodePlan after = will.nodes().get(server.node());
            // A set: a list's contains for each of 10,000 clients would be quadratic.
            java.util.Set<String> stillServed = after != null
                            && after.storage() instanceof StoragePlan.Export e
                            && e.path().equals(export.path())
                    ? new java.util.HashSet<>(e.clients())
                    : java.util.Set.of();
            String source = server.node() + ":" + export.path();
            java.util.Set<String> jobs = new java.util.TreeSet<>();
            List<String> cut = new ArrayList<>();
            for (NodePlan client : was.nodes().values()) {
                String node = client.node();
                if (!(client.storage() instanceof StoragePlan.Mount m
                                && m.source().equals(source))
                        || stillServed.contains(node)) {
                    continue;
                }
                int before = jobs.size();
                var own = seen.get(node);
                if (own != null) {
                    own.jobs().forEach(j -> jobs.add(j + " on " + node));
                }
                // Both looks count: the controller knows a job before its slurmstepd starts; the machine's own may be
                // older.
                if (controllerSaw == null) {
                    controllerSaw = reports.jobsReportedByNode(current.controller());
                }
                controllerSaw.getOrDefault(node, List.of()).stream()
                        .filter(j -> !jobs.contains(j.split(" ")[0] + " on " + node))
                        .forEach(j -> jobs.add(j + " on " + node));
                if (jobs.size() > before) {
                    cut.add(node);
                }
            }
            if (jobs.isEmpty()) {
                continue;
            }
            List<String> listed = List.copyOf(jobs);
            String key;
            String value;
            if (!next.enabled()) {
                key = "enabled";
                value = "false";
            } else if (next.shared() == null
                    || next.shared().path() == null
                    || next.shared().path().isEmpty()
                    || !next.shared().path().replaceAll("/+$", "").equals(export.path())) {
                key = "shared.path";
                value = next.shared() == null || next.shared().path() == null
                        ? ""
                        : next.shared().path();
            } else if (!stillServed.isEmpty()
                    || server.node().equals(next.shared().server())) {
                key = "nodes";
                value = String.join(",", next.nodes());
            } else {
                key = "shared.server";
                value = next.shared().server() == null ? "" : next.shared().server();
            }
            problems.add(new Problem(
                    key,
                    value,
                    ("%s would stop exporting %s to %s while %d job%s that may use it still run%s (%s): "
                                    + "the jobs' files would go from under them; make the change once they have ended (ctl slurm unlend the nodes "
                                    + "to let them drain)")
                            .formatted(
                                    server.node(),
                                    export.path(),
                                    String.join(", ", cut),
                                    listed.size(),
                                    listed.size() == 1 ? "" : "s",
                                    listed.size() == 1 ? "s" : "",
                                    String.join(", ", listed.size() > 5 ? listed.subList(0, 5) : listed)
                                            + (listed.size() > 5 ? ", …" : ""))));
        }
        return problems;
    }

    /**
     * Settings that would outgrow the body this API reads could be stored but never PUT back (a
     * GET, an edit and a PUT is how an admin restores them): refused while they would.
     */
    private List<Problem> tooLargeToSendBack(SlurmSettings next) {
        int size;
        try {
            size = SettingsJson.STRICT.writeValueAsBytes(next).length;
        } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException e) {
            return List.of(); // the store judges it, and says what is wrong
        }
        int max = config.leader().maxBodyBytes();
        if (size <= max) {
            return List.of();
        }
        return List.of(new Problem(
                "settings",
                Integer.toString(size),
                ("the settings would be %d bytes as JSON, over the %d this API "
                                + "reads, so they could not be sent back with a PUT: keep slurm_conf and the lists shorter, or raise "
                                + "slurmlet.leader.max-body-bytes")
                        .formatted(size, max)));
    }

    /** The files the leader holds for containers; none where its store cannot say (the check then asks for a mirror). */
    private List<io.slurmlet.model.api.ContainerFile> heldFiles() {
        try {
            return containerFiles.held();
        } catch (java.io.IOException e) {
            return List.of();
        }
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

    private static UnaryOperator<SlurmSettings> changeLent(java.util.function.Consumer<List<String>> edit) {
        return current -> {
            List<String> lent = new ArrayList<>(current.lent());
            edit.accept(lent);
            return current.withLent(lent);
        };
    }

    private byte[] limit(byte[] body) {
        return limit(body, config.leader().maxBodyBytes(), "the settings");
    }

    /** {@code body}, unless it is over {@code max} bytes (slurmlet.leader.max-body-bytes): then 400, naming {@code what} to send. */
    static byte[] limit(byte[] body, int max, String what) {
        if (body != null && body.length > max) {
            throw new BadJson(
                    "the body is %d bytes, over the %d this API reads: send only %s".formatted(body.length, max, what));
        }
        return body == null ? new byte[0] : body;
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
            return error(
                    409,
                    new ApiError(
                            ("the settings changed since revision %d, which this change was based on; "
                                            + "they are at revision %d now: read them again and redo the change")
                                    .formatted(c.expected(), c.current().revision()),
                            List.of(),
                            c.current().revision()));
        }
        Result.Refused r = (Result.Refused) result;
        return error(
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

    static Response error(int status, ApiError error) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(error)
                .build();
    }
}
