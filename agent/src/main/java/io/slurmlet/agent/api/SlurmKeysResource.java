package io.slurmlet.agent.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.leader.KeyPhases;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.SlurmKeys;
import io.slurmlet.agent.leader.SlurmKeysDriver;
import io.slurmlet.agent.store.StorageException;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.settings.SlurmSettings;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Slurm's own keys under {@code auth=slurm}: their generation, where a rotation is, and which
 * generation each planned slurmctld and slurmd loaded; and a rotation, in three phases, each loaded
 * by every daemon before the next ({@link KeyPhases}), so that it goes on under running jobs. No
 * answer holds a key: kids and generations only.
 */
@Path("/v1/slurm/auth-key")
@Produces(MediaType.APPLICATION_JSON)
public class SlurmKeysResource {

    /** What a daemon whose machine said nothing of its keys shows. */
    static final String NOT_REPORTED = "not reported";
    /** What a daemon that said no generation shows. */
    static final String NOT_LOADED = "not loaded yet";

    /**
     * One machine's daemons.
     *
     * @param node    the machine
     * @param daemons each planned daemon (slurmctld, slurmd) and what it loaded: "loaded generation 8",
     *                "not loaded yet", "not reported"
     */
    @RegisterForReflection
    public record Machine(
            @JsonProperty("node") String node,
            @JsonProperty("daemons") Map<String, String> daemons) {}

    /**
     * The keys and their rotation.
     *
     * @param auth       the settings' auth: munge or slurm
     * @param generation the key list's generation, one more with every change of it
     * @param phase      STEADY, ADDED (a new key beside the one that signs) or SWITCHED (the new key signs)
     * @param since      when this phase began
     * @param signingKid the kid of the key that signs
     * @param kids       every key's kid, in the file's order
     * @param rotation   0 for the cluster's first keys, then one more a rotation
     * @param requested  when the last rotation was asked; null for the first keys
     * @param by         who asked it; null for the first keys
     * @param nextStep   what the rotation waits for next, in one sentence
     * @param machines   every machine whose plan carries the keys, with its planned daemons
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record KeyState(
            @JsonProperty("auth") String auth,
            @JsonProperty("generation") long generation,
            @JsonProperty("phase") String phase,
            @JsonProperty("since") String since,
            @JsonProperty("signing_kid") String signingKid,
            @JsonProperty("kids") List<String> kids,
            @JsonProperty("rotation") long rotation,
            @JsonProperty("requested") String requested,
            @JsonProperty("by") String by,
            @JsonProperty("next_step") String nextStep,
            @JsonProperty("machines") List<Machine> machines,
            @JsonProperty("notes") List<String> notes) {}

    @Inject
    SlurmKeys keys;

    @Inject
    SlurmKeysDriver driver;

    @Inject
    PlanPublisher publisher;

    @Inject
    NodeReports reports;

    @Inject
    SettingsStore store;

    @GET
    public KeyState state() {
        return state(keys.state(), List.of());
    }

    @POST
    @Path("/rotate")
    public Response rotate(@Context HttpServerRequest http) throws IOException {
        SlurmSettings settings = store.current().settings();
        if (!settings.slurmAuth()) {
            return Answers.error(
                    409,
                    ApiError.of("Slurm runs auth=munge, which uses no keys of Slurm's own: ctl slurm munge-key rotate "
                            + "rolls a new munge key; nothing was changed"));
        }
        KeyPhases.State s = keys.state();
        if (s.phase() != KeyPhases.Phase.STEADY) {
            return Answers.error(409, ApiError.of(KeyPhases.underWay(s) + "; nothing was changed"));
        }
        List<String> older = olderAgents(publisher.book().all().values(), reports.observed());
        if (!older.isEmpty()) {
            return Answers.error(
                    409,
                    ApiError.of(("the agent%s of %s %s too old to say which keys %s daemons loaded: the rotation would "
                                    + "wait for %s for good; upgrade slurmlet there first; nothing was changed")
                            .formatted(
                                    older.size() == 1 ? "" : "s",
                                    String.join(", ", older),
                                    older.size() == 1 ? "is" : "are",
                                    older.size() == 1 ? "its" : "their",
                                    older.size() == 1 ? "it" : "them")));
        }
        KeyPhases.State r;
        try {
            r = keys.rotate(JoinResource.caller(http));
        } catch (IllegalStateException e) {
            return Answers.error(409, ApiError.of(e.getMessage() + "; nothing was changed"));
        } catch (StorageException e) {
            throw e; // the store's own answer (ErrorMappers)
        } catch (IOException e) {
            // The leader's own file, or the sealed secrets it could not replace: never a key in the message.
            return Answers.error(500, ApiError.of("Slurm key rotation: " + e.getMessage()));
        }
        publisher.nudge();
        driver.wake();
        return Response.ok(state(
                        r,
                        List.of(
                                ("rotation %d: generation %d adds %s beside %s, which still signs; once every slurmctld and "
                                                + "slurmd loaded it, %s signs, and %s is dropped a token's lifetime later (jobs keep "
                                                + "running throughout)")
                                        .formatted(
                                                r.rotation(),
                                                r.generation(),
                                                newest(r),
                                                r.keys().jwks().signing(),
                                                newest(r),
                                                r.keys().jwks().signing()),
                                "a machine that is down or cut off holds the rotation at its phase until it is back; the old key "
                                        + "keeps working meanwhile",
                                "watch it: ctl slurm auth-key status")))
                .build();
    }

    /** {@code s} as answered, with where each daemon is now. */
    private KeyState state(KeyPhases.State s, List<String> notes) {
        SlurmSettings settings = store.current().settings();
        Map<String, Set<String>> daemons =
                SlurmKeysDriver.daemons(publisher.book().all().values());
        Map<String, Observed> observed = reports.observed();
        Map<String, SlurmSeen.JwksSeen> seen = SlurmKeysDriver.seen(observed);
        Duration wait = driver.ttlPlusMargin(settings);
        return new KeyState(
                settings.slurmAuth() ? SlurmSettings.AUTH_SLURM : SlurmSettings.AUTH_MUNGE,
                s.generation(),
                s.phase().name(),
                s.since().toString(),
                s.keys().jwks().signing(),
                s.keys().jwks().kids(),
                s.rotation(),
                s.requested().map(Instant::toString).orElse(null),
                s.requested().isPresent() ? s.by() : null,
                KeyPhases.nextStep(s, daemons, seen, wait),
                machines(daemons, seen),
                notes);
    }

    /** Each machine's planned daemons, and what each loaded, in words. */
    static List<Machine> machines(Map<String, Set<String>> daemons, Map<String, SlurmSeen.JwksSeen> seen) {
        List<Machine> machines = new ArrayList<>();
        new TreeMap<>(daemons).forEach((node, units) -> {
            Map<String, String> said = new LinkedHashMap<>();
            for (String unit : units.stream().sorted().toList()) {
                said.put(
                        unit,
                        !seen.containsKey(node)
                                ? NOT_REPORTED
                                : KeyPhases.loaded(seen, node, unit)
                                        .map(g -> "loaded generation " + g)
                                        .orElse(NOT_LOADED));
            }
            machines.add(new Machine(node, said));
        });
        return machines;
    }

    /**
     * The Slurm machines (their plans carry Slurm's keys or daemons) whose agents report Slurm and no
     * keys: too old to say what their daemons loaded, which a rotation waits for.
     */
    static List<String> olderAgents(java.util.Collection<PublishedPlan> plans, Map<String, Observed> observed) {
        return plans.stream()
                .filter(p -> p.plan().slurmKeys().isPresent()
                        || !p.plan().slurm().services().isEmpty())
                .map(p -> p.plan().node())
                .filter(n -> {
                    Observed o = observed.get(n);
                    return o != null && o.slurm() != null && o.slurm().jwks() == null;
                })
                .sorted()
                .toList();
    }

    private static String newest(KeyPhases.State s) {
        List<String> kids = s.keys().jwks().kids();
        return kids.get(kids.size() - 1);
    }
}
