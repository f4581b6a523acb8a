package io.slurmlet.agent.leader;

import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** {@link SettingsAdmission}'s rule for a switch of {@code auth}: when it would hurt jobs or split the cluster. */
final class AuthSwitch {

    private AuthSwitch() {}

    /**
     * A switch of {@code auth} while slurmlet runs Slurm, refused while it would hurt: it restarts
     * slurmctld and every slurmd with the other AuthType, which Slurm does not support under running
     * jobs (a job's slurmstepd keeps the plugin it started with: its end would be refused, and the
     * job requeued), nor while jobs wait (the machines restart one by one, and a launch between two
     * that disagree is refused); and while an agent on a Slurm machine is too old to write slurm.jwks
     * (its machine would stay on munge, cut off from the cluster). The jobs are those the controller
     * last reported and those each machine saw of itself.
     */
    static List<Problem> problems(
            SlurmSettings current,
            SlurmSettings next,
            boolean windingDown,
            NodeReports reports,
            KeyPhases.State rotation) {
        if (current.slurmAuth() == next.slurmAuth() || !current.enabled() && !windingDown) {
            return List.of(); // no Slurm of slurmlet's runs: it starts on the new one
        }
        String value = next.authShown();
        String switching = "switching auth from %s to %s restarts slurmctld and every slurmd"
                .formatted(current.authShown(), value);
        List<Problem> problems = new ArrayList<>();
        Map<String, Observed> seen = reports.observed();
        // The controller's word, and what each machine saw of itself (the more careful of the two, where they differ).
        List<String> jobs = new ArrayList<>(reports.jobsRunning(current.controller()));
        Set<String> ids = new HashSet<>(jobs.stream().map(j -> j.split(" ")[0]).toList());
        new TreeMap<>(seen)
                .values()
                .forEach(o -> o.jobs().stream().filter(ids::add).forEach(jobs::add));
        List<QueuedJob> queued = reports.jobsQueued(current.controller());
        if (!jobs.isEmpty() || !queued.isEmpty()) {
            problems.add(new Problem(
                    "auth",
                    value,
                    ("%s, and Slurm does not support a change of AuthType under jobs (a running job's slurmstepd "
                                    + "keeps the plugin it started with; a job launched while the machines restart "
                                    + "is refused): %s; switch once squeue shows none (%s)")
                            .formatted(
                                    switching,
                                    SettingsAdmission.jobsAnd(
                                            SettingsAdmission.count(jobs, "running", false),
                                            SettingsAdmission.count(
                                                    queued.stream()
                                                            .map(Object::toString)
                                                            .toList(),
                                                    "waiting",
                                                    queued.size() >= QueuedJob.REPORTED_AT_MOST)),
                                    queued.isEmpty()
                                            ? "ctl slurm unlend the nodes to let them drain"
                                            : SettingsAdmission.WAITING_FIX)));
        }
        if (rotation.phase() != KeyPhases.Phase.STEADY) {
            problems.add(new Problem(
                    "auth",
                    value,
                    ("%s, and rotation %d of Slurm's keys is under way (phase %s): wait for it to end (ctl slurm "
                                    + "auth-key status)")
                            .formatted(switching, rotation.rotation(), rotation.phase())));
        }
        List<String> older = new ArrayList<>();
        new TreeMap<>(seen).forEach((node, o) -> {
            if (o.slurm() != null && o.slurm().jwks() == null) {
                older.add(node);
            }
        });
        if (!older.isEmpty()) {
            problems.add(new Problem(
                    "auth",
                    value,
                    ("%s, and the agent on %s is of a slurmlet too old to write Slurm's keys (slurm.jwks): upgrade "
                                    + "slurmlet there first")
                            .formatted(switching, String.join(", ", older))));
        }
        return problems;
    }
}
