package io.slurmlet.agent.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.leader.MungeKeys;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.observed.ClockSeen;
import io.slurmlet.model.observed.MungeSeen;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.PublishedPlan;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The cluster's munge key: which rotation every machine holds, and rolling a new one to all of them.
 * A rotation switches every machine at one moment the leader picks a few seconds out (each agent
 * writes the key and restarts munged then), so that running jobs and the steps launched across the
 * switch are not refused for a key one side does not hold yet; a machine down then takes it when it
 * is back. Neither the key nor anything made from it is in any answer.
 */
@Path("/v1/slurm/munge-key")
@Produces(MediaType.APPLICATION_JSON)
public class MungeKeyResource {

    /**
     * Where one machine is.
     *
     * @param holds whether it reported holding the key of the cluster's current rotation
     * @param state in words: holds it, switches at its moment, has not switched, has not reported
     * @param clock its clock against the leader's, as its agent measured it ("3 ms ahead of the
     *              leader's (±1 ms)"): a switch is at the leader's moment, corrected by it; where it
     *              was not measured, the machine switches by its own clock, and says so
     */
    @RegisterForReflection
    public record Machine(
            @JsonProperty("node") String node,
            @JsonProperty("holds") boolean holds,
            @JsonProperty("state") String state,
            @JsonProperty("clock") String clock) {}

    /** What status says of a machine whose agent has not measured its clock against the leader's. */
    static final String CLOCK_UNKNOWN =
            "not measured (no status answered yet, or an agent older than it): it switches by its own clock";

    /**
     * The cluster's key as rotated, and where each machine with a Slurm role is.
     *
     * @param rotation  0 for the cluster's first key, then one more a rotation
     * @param switchAt  when machines switched (or switch) to it; null for the first key
     * @param requested when and by whom the rotation was asked; null for the first key
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record KeyState(
            @JsonProperty("rotation") long rotation,
            @JsonProperty("switch_at") String switchAt,
            @JsonProperty("requested") String requested,
            @JsonProperty("by") String by,
            @JsonProperty("machines") List<Machine> machines,
            @JsonProperty("notes") List<String> notes) {}

    @Inject
    MungeKeys keys;

    @Inject
    PlanPublisher publisher;

    @Inject
    NodeReports reports;

    @Inject
    SettingsStore store;

    @GET
    public KeyState state() {
        return state(List.of());
    }

    @POST
    @Path("/rotate")
    public Response rotate(@Context HttpServerRequest http, @QueryParam("under_jobs") boolean underJobs)
            throws IOException {
        if (store.current().settings().slurmAuth()) {
            return Answers.error(
                    409,
                    ApiError.of("Slurm runs auth=slurm, which uses no munge key: the machines keep Slurm's own keys in "
                            + "/etc/slurm/slurm.jwks; nothing was changed"));
        }
        List<String> running = reports.jobsRunning(store.current().settings().controller());
        if (!underJobs && !running.isEmpty()) {
            return Answers.error(409, ApiError.of(underJobsRefused(running)));
        }
        Map<String, Observed> observed = reports.observed(); // a copy of every machine's report: taken once
        Map<String, MungeSeen> seen = new TreeMap<>();
        observed.forEach((node, o) -> {
            if (o.munge() != null) {
                seen.put(node, o.munge());
            }
        });
        List<String> older =
                olderAgents(planned().stream().map(p -> p.plan().node()).toList(), seen);
        if (!older.isEmpty()) {
            return Answers.error(
                    409,
                    ApiError.of(("the agent%s of %s %s older than munge key rotations: %s would refuse the plan "
                                    + "that carries the new key and keep the old one, which the other machines no longer accept; upgrade slurmlet there "
                                    + "first; nothing was changed")
                            .formatted(
                                    older.size() == 1 ? "" : "s",
                                    String.join(", ", older),
                                    older.size() == 1 ? "is" : "are",
                                    older.size() == 1 ? "it" : "they")));
        }
        MungeKeys.Rotation r;
        try {
            r = keys.rotate(JoinResource.caller(http));
        } catch (StorageException e) {
            throw e; // the store's own answer (ErrorMappers)
        } catch (IOException e) {
            // The leader's own files, or the sealed secrets it could not replace: never the key in the message.
            return Answers.error(500, ApiError.of("munge key rotation: " + e.getMessage()));
        }
        publisher.nudge();
        List<String> notes = List.of(
                ("rotation %d: a new munge key is stored on the leader; every machine with a Slurm role writes it and restarts "
                                + "munged at %s by the leader's clock, together (slurmctld, slurmd and jobs keep running)")
                        .formatted(r.rotation(), r.switchAt()),
                "a machine that is down or cut off then takes the new key as soon as it has its plan again; until it does, "
                        + "Slurm refuses its messages: its jobs keep running, but a batch job that ends there has its end refused and "
                        + "is requeued (24.11 and later) or ends late (22.05, sent again every 15 s)",
                "watch it: ctl slurm munge-key status");
        List<String> ownClocks = planned().stream()
                .map(p -> p.plan().node())
                .filter(n -> Optional.ofNullable(observed.get(n))
                        .map(Observed::clock)
                        .isEmpty())
                .toList();
        if (!ownClocks.isEmpty()) {
            notes = new ArrayList<>(notes);
            notes.add(
                    1,
                    ("%s %s not measured %s clock against the leader's yet (an agent older than that, or none of its "
                                    + "status reports answered): %s by %s own clock, as far off as it is")
                            .formatted(
                                    String.join(", ", ownClocks),
                                    ownClocks.size() == 1 ? "has" : "have",
                                    ownClocks.size() == 1 ? "its" : "their",
                                    ownClocks.size() == 1 ? "it switches" : "they switch",
                                    ownClocks.size() == 1 ? "its" : "their"));
        }
        return Response.ok(state(notes)).build();
    }

    /**
     * Why a rotation waits for the jobs to end, unless the admin says to go on under them: munged knows
     * one key, and a message signed just before one machine's switch and checked just after another's is
     * refused; on 24.11 slurmstepd does not send a batch job's end again after a refusal, and Slurm
     * requeues the job; on 22.05 it sends it again 15 s later and the job ends late
     * (system-tests/slurm/FINDINGS.md, "Changing the munge key under jobs").
     */
    static String underJobsRefused(List<String> running) {
        int shown = Math.min(running.size(), 5);
        return ("%d job%s run%s (%s%s): a batch job that ends within a fraction of a second of the switch can have its end refused "
                        + "by slurmctld, and Slurm then requeues it (24.11 and later; 22.05 sends it again, the job ends up to 15 s "
                        + "late); rotate once squeue shows none, or say so with --under-jobs "
                        + "(under_jobs=true) to take that risk; nothing was changed")
                .formatted(
                        running.size(),
                        running.size() == 1 ? "" : "s",
                        running.size() == 1 ? "s" : "",
                        String.join(", ", running.subList(0, shown)),
                        running.size() > shown ? ", …" : "");
    }

    private KeyState state(List<String> notes) {
        MungeKey key = keys.current();
        Optional<MungeKeys.Rotation> last = keys.last();
        Map<String, Observed> seen = reports.observed();
        List<Machine> machines = new ArrayList<>();
        for (PublishedPlan p : planned()) {
            Optional<Observed> o = Optional.ofNullable(seen.get(p.plan().node()));
            machines.add(machine(
                    p.plan().node(),
                    key,
                    o.map(Observed::munge).orElse(null),
                    o.map(Observed::clock).orElse(null),
                    p.plan().mungeKey().map(k -> k.rotation() == key.rotation()).orElse(false)));
        }
        return new KeyState(
                key.rotation(),
                last.map(r -> r.switchAt().toString()).orElse(null),
                last.map(r -> r.requested().toString()).orElse(null),
                last.map(MungeKeys.Rotation::by).orElse(null),
                machines,
                notes);
    }

    /**
     * The machines among {@code planned} whose agents are older than rotations: they hold the
     * cluster's key but say of no rotation (an agent since rotations always does where the key matches).
     */
    static List<String> olderAgents(List<String> planned, Map<String, MungeSeen> seen) {
        return planned.stream()
                .filter(n -> seen.get(n) != null
                        && seen.get(n).matches()
                        && seen.get(n).rotation() == null)
                .sorted()
                .toList();
    }

    /** The machines whose plans carry a key (those with a Slurm role), by name. */
    private List<PublishedPlan> planned() {
        return publisher.book().all().values().stream()
                .filter(p -> p.plan().mungeKey().isPresent())
                .sorted(Comparator.comparing(p -> p.plan().node()))
                .toList();
    }

    /**
     * @param clock   its clock as its agent measured it; null where not
     * @param planned whether the machine's published plan carries the current key already
     */
    static Machine machine(String node, MungeKey key, MungeSeen seen, ClockSeen clock, boolean planned) {
        Machine m = machine(node, key, seen, planned);
        return new Machine(node, m.holds(), m.state(), clock == null ? CLOCK_UNKNOWN : clock.said());
    }

    private static Machine machine(String node, MungeKey key, MungeSeen seen, boolean planned) {
        if (seen == null) {
            return new Machine(node, false, "has not reported what its munge step saw", "");
        }
        boolean holds = seen.matches() && seen.rotation() != null && seen.rotation() == key.rotation();
        if (holds) {
            return new Machine(
                    node,
                    true,
                    key.rotation() == 0
                            ? "holds the cluster's first key"
                            : "holds rotation %d's key".formatted(key.rotation()),
                    "");
        }
        if (!planned) {
            return new Machine(node, false, "its plan does not carry the new key yet", "");
        }
        String at = key.switchAt().map(t -> " (due at " + t + ")").orElse("");
        return new Machine(
                node,
                false,
                seen.rotation() != null
                        ? "still holds rotation %d's key%s".formatted(seen.rotation(), at)
                        : "has not reported holding the new key%s".formatted(at),
                "");
    }
}
