package io.slurmlet.agent.node;

import io.slurmlet.agent.slurm.LocalJobs;
import io.slurmlet.agent.system.HostFiles;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;

/**
 * Looks every {@code every} at which Slurm jobs have a step on this machine (its slurmstepd
 * processes, from /proc: cheap, and asking no daemon) and has a status sent when that changes, so
 * that what the leader's dry runs know of the jobs here (a mount that must stay under them) is at
 * most that old, not as old as the last pass.
 */
final class JobsWatch extends Worker {

    private final HostFiles host;
    private final Runnable changed;
    private final Duration every;
    private volatile List<String> jobs;

    JobsWatch(HostFiles host, Runnable changed, Duration every) {
        super("slurmlet-jobs-watch");
        this.host = host;
        this.changed = changed;
        this.every = every;
        this.jobs = LocalJobs.running(host);
    }

    /** The jobs seen last, by id. */
    List<String> jobs() {
        return jobs;
    }

    /** One look; says whether the jobs changed (and, if so, has a status sent). */
    boolean look() {
        List<String> now;
        try {
            now = LocalJobs.running(host);
        } catch (UncheckedIOException e) {
            return false;
        }
        if (now.equals(jobs)) {
            return false;
        }
        jobs = now;
        changed.run();
        return true;
    }

    @Override
    protected void loop() {
        repeat(every, this::look);
    }
}
