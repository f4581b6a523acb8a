package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What a machine's steps last saw of it, as its agent reports it: the leader's dry runs run each
 * step's diff against it, so a preview says what the agent would do to the machine as it is, not as
 * its plan says it should be. A step that has not looked yet (or is not on the step shape yet) is
 * null: the preview then takes the machine to hold its current plan. Never a secret, nor a digest of one.
 *
 * <p>A section a later agent adds is ignored by this leader; one this agent adds after its leader's
 * release ({@code users}, {@code packages}, {@code slurm}, {@code queued},
 * {@code containers_step}, {@code clock}) is left out when null, and an agent whose report is
 * refused for it sends it again without them.
 *
 * @param jobs the ids of the Slurm jobs with a step on the machine, looked at every 2 s (and sent
 *             when they change): fresher than what the steps saw at their last pass
 * @param queued from the controller only: the jobs slurmctld holds that have not started, as its node
 *             states step last saw them; null elsewhere, and before it looked
 * @param containers what the containers step last saw ({@code containers_step}) on a Slurm machine,
 *             containers on or off; null elsewhere, before it looked, and from an agent older than it
 *             (the dry run then says what it can from the facts)
 * @param clock the machine's clock against the leader's, as the agent measured it; null before it
 *             had an answer that said the leader's time, and from an agent older than it
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Observed(
        @JsonProperty("munge") MungeSeen munge,
        @JsonProperty("storage") StorageSeen storage,
        @JsonProperty("pam") PamSeen pam,
        @JsonProperty("jobs") List<String> jobs,

        @JsonProperty("users") @JsonInclude(JsonInclude.Include.NON_NULL)
        UsersSeen users,

        @JsonProperty("packages") @JsonInclude(JsonInclude.Include.NON_NULL)
        PackagesSeen packages,

        @JsonProperty("slurm") @JsonInclude(JsonInclude.Include.NON_NULL)
        SlurmSeen slurm,

        @JsonProperty("queued") @JsonInclude(JsonInclude.Include.NON_NULL)
        List<QueuedJob> queued,

        @JsonProperty("containers_step") @JsonInclude(JsonInclude.Include.NON_NULL)
        ContainersSeen containers,

        @JsonProperty("clock") @JsonInclude(JsonInclude.Include.NON_NULL)
        ClockSeen clock) {

    public static final Observed NOTHING =
            new Observed(null, null, null, List.of(), null, null, null, null, null, null);

    public Observed {
        jobs = List.copyOf(jobs == null ? List.of() : jobs);
        if (jobs.size() > 100_000 || jobs.stream().anyMatch(j -> !j.matches("[0-9]{1,12}"))) {
            throw new IllegalArgumentException("jobs are job ids");
        }
        queued = queued == null
                ? null
                : List.copyOf(queued.subList(0, Math.min(queued.size(), QueuedJob.REPORTED_AT_MOST)));
    }

    /** Without what the containers step saw. */
    public Observed(
            MungeSeen munge,
            StorageSeen storage,
            PamSeen pam,
            List<String> jobs,
            UsersSeen users,
            PackagesSeen packages,
            SlurmSeen slurm,
            List<QueuedJob> queued) {
        this(munge, storage, pam, jobs, users, packages, slurm, queued, null, null);
    }

    /** Without the jobs the controller holds queued: what every machine but the controller reports. */
    public Observed(
            MungeSeen munge,
            StorageSeen storage,
            PamSeen pam,
            List<String> jobs,
            UsersSeen users,
            PackagesSeen packages,
            SlurmSeen slurm) {
        this(munge, storage, pam, jobs, users, packages, slurm, null);
    }

    /** The same, with {@code now} as the jobs that run on the machine. */
    public Observed withJobs(List<String> now) {
        return new Observed(munge, storage, pam, now, users, packages, slurm, queued, containers, clock);
    }

    public Observed withMunge(MungeSeen seen) {
        return new Observed(seen, storage, pam, jobs, users, packages, slurm, queued, containers, clock);
    }

    public Observed withStorage(StorageSeen seen) {
        return new Observed(munge, seen, pam, jobs, users, packages, slurm, queued, containers, clock);
    }

    public Observed withPam(PamSeen seen) {
        return new Observed(munge, storage, seen, jobs, users, packages, slurm, queued, containers, clock);
    }

    public Observed withUsers(UsersSeen seen) {
        return new Observed(munge, storage, pam, jobs, seen, packages, slurm, queued, containers, clock);
    }

    public Observed withPackages(PackagesSeen seen) {
        return new Observed(munge, storage, pam, jobs, users, seen, slurm, queued, containers, clock);
    }

    public Observed withSlurm(SlurmSeen seen) {
        return new Observed(munge, storage, pam, jobs, users, packages, seen, queued, containers, clock);
    }

    public Observed withQueued(List<QueuedJob> seen) {
        return new Observed(munge, storage, pam, jobs, users, packages, slurm, seen, containers, clock);
    }

    public Observed withContainers(ContainersSeen seen) {
        return new Observed(munge, storage, pam, jobs, users, packages, slurm, queued, seen, clock);
    }

    public Observed withClock(ClockSeen seen) {
        return new Observed(munge, storage, pam, jobs, users, packages, slurm, queued, containers, seen);
    }

    /** As an agent before the users, packages, slurm, queued, containers and clock sections reported it, for a leader of that release. */
    public Observed withoutLaterSections() {
        return new Observed(munge, storage, pam, jobs, null, null, null, null);
    }
}
