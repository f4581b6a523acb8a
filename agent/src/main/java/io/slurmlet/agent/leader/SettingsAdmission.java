package io.slurmlet.agent.leader;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.leader.lending.LendingBook;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.leader.plan.Reviews;
import io.slurmlet.agent.slurm.conf.MemoryClasses;
import io.slurmlet.model.api.ContainerFile;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the leader takes a change of its settings: the rules that refuse a change that would hurt
 * jobs or could not take effect, beyond the settings' own checks ({@link SlurmSettings#check}). A
 * change that would end running or waiting jobs (the controller moved, the partition renamed), stop
 * an export under the jobs that use it, bring what the controller's Slurm cannot run, turn containers
 * on where a machine cannot fetch their files, or outgrow what the API reads back.
 *
 * <p>The store's judge ({@link SettingsStore.Admission}): a write is judged under the store's lock
 * against the settings it is stored over, and a dry run by the same rules, so the two never
 * disagree and a write sent without {@code If-Match} is never judged against older settings than
 * the ones it replaces. What it reads of the cluster (machines, lendings, jobs) is the leader's last
 * look, as before.
 */
public final class SettingsAdmission implements SettingsStore.Admission {

    private final Inventory inventory;
    private final NodeReports reports;
    private final LendingBook lending;
    private final ArtifactTable artifacts;
    private final ContainerFiles containerFiles;
    private final int maxBodyBytes;
    /** The rotation of Slurm's keys: an auth switch waits for one under way to end. */
    private final java.util.function.Supplier<KeyPhases.State> keys;
    /** Every machine's plans for the settings before and after a write, the last kept for the next write. */
    private final Reviews reviews = new Reviews();

    /** @param maxBodyBytes the largest body the API reads (slurmlet.leader.max-body-bytes): stored settings must fit it */
    public SettingsAdmission(
            Inventory inventory,
            NodeReports reports,
            LendingBook lending,
            ArtifactTable artifacts,
            ContainerFiles containerFiles,
            int maxBodyBytes,
            java.util.function.Supplier<KeyPhases.State> keys) {
        this.keys = keys;
        this.inventory = inventory;
        this.reports = reports;
        this.lending = lending;
        this.artifacts = artifacts;
        this.containerFiles = containerFiles;
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * The problems that refuse {@code next} over {@code current}; the rules that compare both
     * settings' plans only where {@code checked} ({@code next} passed its own checks). Settings too large
     * to send back are said only where nothing else refuses them.
     */
    @Override
    public synchronized List<Problem> judge(SlurmSettings current, SlurmSettings next, boolean checked) {
        List<Problem> hurts = new ArrayList<>();
        // Read once for every check: the machines, the lendings under way, the nodes slurmctld knows.
        Map<String, NodeFacts> machines = inventory.all();
        Set<String> underWay = lending.underWay();
        Set<String> known = known(current);
        List<String> gpuMachines = new ArrayList<>();
        if (checked) { // else the store refuses it, and says why
            // The plans of both settings, made once for every check that compares them.
            Set<Long> classes = lending.memoryClasses();
            Planner.Plans was =
                    reviews.of(current, machines, Planner.Lent.asWished(current, underWay, known, machines, classes));
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
        boolean windingDown = !current.enabled()
                && !Planner.leaving(current, underWay, known, machines).isEmpty();
        hurts.addAll(whatWouldEndJobs(current, next, windingDown));
        hurts.addAll(AuthSwitch.problems(current, next, windingDown, reports, keys.get()));
        return hurts.isEmpty() ? tooLargeToSendBack(next) : hurts;
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
        List<QueuedJob> queued = reports.jobsQueued(current.controller());
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
                                                    queued.size() >= QueuedJob.REPORTED_AT_MOST)),
                                    queued.isEmpty() ? "ctl slurm unlend the nodes to let them drain" : WAITING_FIX)));
        }
        String was = current.partition(); // never empty: SlurmSettings gives the default
        String now = next.partition();
        // Its memory classes' partitions are renamed with it.
        List<String> waitingThere = queued.stream()
                .filter(j -> j.partitions().stream().anyMatch(p -> MemoryClasses.isOrBelongsTo(p, was)))
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
                                                queued.size() >= QueuedJob.REPORTED_AT_MOST)),
                                waitingThere.isEmpty()
                                        ? "ctl slurm unlend the nodes to let them drain"
                                        : WAITING_FIX)));
        return problems;
    }

    /** What to do about jobs that wait: once nodes are unlent they can never run. */
    static final String WAITING_FIX =
            "let the waiting jobs run, or scancel them; ctl slurm unlend the nodes to let the " + "running ones drain";

    /**
     * {@code the 2 jobs running in it (17 of alice, 18 of bob)}, the first five named; empty for none.
     *
     * @param partial from a queue the controller reported only in part ({@link
     *                io.slurmlet.model.observed.QueuedJob#REPORTED_AT_MOST}): "at least"
     */
    static String count(List<String> jobs, String where, boolean partial) {
        if (jobs.isEmpty()) {
            return "";
        }
        String listed = String.join(", ", jobs.size() > 5 ? jobs.subList(0, 5) : jobs) + (jobs.size() > 5 ? ", …" : "");
        return "%s %d job%s %s (%s)"
                .formatted(partial ? "at least" : "the", jobs.size(), jobs.size() == 1 ? "" : "s", where, listed);
    }

    static String jobsAnd(String running, String queued) {
        return running.isEmpty() ? queued : queued.isEmpty() ? running : running + " and " + queued;
    }

    /**
     * The nodes slurmctld has a record of: those the lending engine noted, and those the controller's
     * agent showed since (the engine notes them at its next look, up to a second later).
     */
    public Set<String> known(SlurmSettings current) {
        Set<String> known = new TreeSet<>(lending.knownToSlurm());
        known.addAll(reports.slurmNodesReportedBy(current.controller()));
        return known;
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
                .filter(p -> p.key().startsWith("slurm_conf.")
                        || p.key().startsWith("experimental.")
                        || p.key().equals("auth"))
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
        Map<String, Observed> seen = reports.observed();
        List<Problem> problems = new ArrayList<>();
        Map<String, List<String>> controllerSaw = null; // read once, where a client's export is cut
        for (NodePlan server : was.nodes().values()) {
            if (!(server.storage() instanceof StoragePlan.Export export)) {
                continue;
            }
            NodePlan after = will.nodes().get(server.node());
            // A set: a list's contains for each of 10,000 clients would be quadratic.
            Set<String> stillServed = after != null
                            && after.storage() instanceof StoragePlan.Export e
                            && e.path().equals(export.path())
                    ? new HashSet<>(e.clients())
                    : Set.of();
            String source = server.node() + ":" + export.path();
            Set<String> jobs = new TreeSet<>();
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
        } catch (RuntimeException | JsonProcessingException e) {
            return List.of(); // the store judges it, and says what is wrong
        }
        int max = maxBodyBytes;
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
    private List<ContainerFile> heldFiles() {
        try {
            return containerFiles.held();
        } catch (IOException e) {
            return List.of();
        }
    }
}
