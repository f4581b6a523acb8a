package io.slurmlet.agent.leader.lending;

import io.slurmlet.model.api.SlurmNodeState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The lending rules, pure: from a node's record, the wish (the settings lend it or not) and what
 * slurmctld shows of it, the next record and the hook to run, if any. The last wish wins: a node
 * unlent while it is being lent is reclaimed (and released), one lent again while it is being
 * reclaimed is lent again; nothing gets stuck between.
 */
public final class Lending {

    /** A site hook to run for the node. */
    public enum Hook {
        NONE,
        DRAIN,
        RELEASE
    }

    /** The next record, and the hook the engine runs now (its result goes to {@link #afterHook}). */
    public record Decision(LendingRecord record, Hook hook) {}

    /**
     * How a hook ended.
     *
     * @param exit     its exit status; meaningless when {@code failure} is set
     * @param output   the last lines it printed
     * @param failure  why it could not run or did not end (not found, past its deadline); empty: it ran
     */
    public record HookResult(int exit, String output, String failure) {
        public static final int BUSY = 75;
    }

    /**
     * What the rules need besides the record.
     *
     * @param wished     the settings lend the node
     * @param slurmNode  the node is one of the Slurm cluster's (it can run jobs, so a reclaim waits for them)
     * @param slurm      the node as slurmctld last showed it
     * @param drainHook  a drain hook is configured
     * @param releaseHook a release hook is configured
     * @param busyRetry  how long after "still busy" (75) the drain hook runs again
     * @param leaving    the settings take the node out of Slurm: it is reclaimed before it leaves slurm.conf
     * @param queuedNaming where it leaves slurm.conf: the queued jobs that name it (asked for with -w, or
     *                   excluded with -x), as {@code 55 of alice}; Slurm fails each once the node is gone
     * @param unready    why the machine cannot take Slurm's jobs yet (its shared storage is not mounted): a lend
     *                   waits for it, so that no job starts without what it uses
     */
    public record Inputs(
            boolean wished,
            boolean slurmNode,
            Optional<SlurmNodeState> slurm,
            boolean drainHook,
            boolean releaseHook,
            Duration busyRetry,
            boolean leaving,
            List<String> queuedNaming,
            Optional<String> unready) {
        public Inputs {
            queuedNaming = queuedNaming == null ? List.of() : List.copyOf(queuedNaming);
            unready = unready == null ? Optional.empty() : unready;
        }

        public Inputs(
                boolean wished,
                boolean slurmNode,
                Optional<SlurmNodeState> slurm,
                boolean drainHook,
                boolean releaseHook,
                Duration busyRetry,
                boolean leaving,
                List<String> queuedNaming) {
            this(wished, slurmNode, slurm, drainHook, releaseHook, busyRetry, leaving, queuedNaming, Optional.empty());
        }

        public Inputs(
                boolean wished,
                boolean slurmNode,
                Optional<SlurmNodeState> slurm,
                boolean drainHook,
                boolean releaseHook,
                Duration busyRetry,
                boolean leaving) {
            this(wished, slurmNode, slurm, drainHook, releaseHook, busyRetry, leaving, List.of());
        }

        public Inputs(
                boolean wished,
                boolean slurmNode,
                Optional<SlurmNodeState> slurm,
                boolean drainHook,
                boolean releaseHook,
                Duration busyRetry) {
            this(wished, slurmNode, slurm, drainHook, releaseHook, busyRetry, false);
        }
    }

    /** Why a node taken out of Slurm is reclaimed. */
    static final String LEAVES = "taken out of Slurm in the settings: reclaimed before slurm.conf loses it";

    static final Duration FIRST_BACKOFF = Duration.ofSeconds(5);
    static final Duration LONGEST_BACKOFF = Duration.ofMinutes(5);

    private Lending() {}

    public static Decision decide(LendingRecord record, Inputs in, Instant now) {
        LendingRecord r = record;
        for (int moves = 0; moves < 4; moves++) {
            Decision d = step(r, in, now);
            if (d.hook() != Hook.NONE || d.record().phase() == r.phase()) {
                return d;
            }
            r = d.record();
        }
        return new Decision(r, Hook.NONE);
    }

    private static Decision step(LendingRecord r, Inputs in, Instant now) {
        String at = now.toString();
        switch (r.phase()) {
            case PLATFORM:
                return in.wished() ? stay(r.moved(Phase.LENDING, at, "lent in the settings")) : stay(r.waiting(""));
            case LENDING:
                if (!in.wished()) {
                    if (!in.leaving()
                            && r.enteredFrom(Phase.PLATFORM)
                            && r.attempts() == 0
                            && r.hookRunning().isEmpty()) {
                        // The platform was never asked: it has nothing to get back, and its release hook is not run.
                        return stay(r.moved(
                                Phase.PLATFORM,
                                at,
                                "unlent before the platform's drain hook ran: nothing to give back"));
                    }
                    return stay(r.moved(
                            Phase.RECLAIMING, at, in.leaving() ? LEAVES : "unlent before the platform had freed it"));
                }
                if (in.unready().isPresent()) {
                    return stay(r.waiting(in.unready().get()));
                }
                if (!in.drainHook()) {
                    return stay(r.moved(Phase.LENT, at, "no drain hook: free at once"));
                }
                return due(r, now) ? new Decision(r.waiting("the platform's drain hook runs"), Hook.DRAIN) : stay(r);
            case LENT:
                if (!in.wished()) {
                    return stay(r.moved(Phase.RECLAIMING, at, in.leaving() ? LEAVES : "unlent in the settings"));
                }
                return stay(r.waiting(in.slurm()
                        .map(Lending::whyNotRunning)
                        .orElse(in.slurmNode() ? "the controller has not shown this node's Slurm state yet" : "")));
            case RECLAIMING:
            default:
                if (in.wished()) {
                    // Back to what it was: lent, if the platform had freed it; else the platform's drain hook has yet
                    // to say so.
                    return r.reclaimedWhileLending()
                            ? stay(r.moved(Phase.LENDING, at, "lent again before the platform had freed it"))
                            : stay(r.moved(Phase.LENT, at, "lent again before it was released"));
                }
                if (in.slurmNode()) {
                    if (in.slurm().isEmpty()) {
                        return stay(r.waiting(
                                "the controller has not shown this node's Slurm state yet (is slurmctld running?)"));
                    }
                    SlurmNodeState s = in.slurm().get();
                    String then = in.leaving() ? ", then it leaves Slurm" : "";
                    if (!s.jobs().isEmpty()) {
                        return stay(r.waiting(jobs(s.jobs()) + then));
                    }
                    if (!in.queuedNaming().isEmpty()) {
                        // A job that names the node (-w, -x) would be failed by Slurm once slurm.conf loses it: the
                        // admin decides.
                        boolean one = in.queuedNaming().size() == 1;
                        return stay(r.waiting(
                                ("%s in the queue name%s this node (-w or -x), and Slurm fails a job whose node "
                                                + "leaves slurm.conf: it leaves Slurm once %s (scancel %s, or name the node in nodes again)")
                                        .formatted(
                                                named(in.queuedNaming()),
                                                one ? "s" : "",
                                                one ? "it has gone" : "they have gone",
                                                one ? "it" : "them")));
                    }
                    if (!s.drained()) {
                        return stay(r.waiting("the controller's agent drains it in Slurm" + then));
                    }
                }
                if (!in.releaseHook()) {
                    return stay(r.moved(Phase.PLATFORM, at, "no job left; no release hook: the platform's again"));
                }
                return due(r, now)
                        ? new Decision(r.waiting("the platform's release hook runs"), Hook.RELEASE)
                        : stay(r);
        }
    }

    /** The record after {@code hook} ended with {@code result}. */
    public static LendingRecord afterHook(
            LendingRecord r, Hook hook, HookResult result, Duration busyRetry, Instant now) {
        String at = now.toString();
        String name = hook == Hook.DRAIN ? "drain" : "release";
        if (result.failure().isEmpty() && result.exit() == 0) {
            LendingRecord done = r.withOutput(result.output());
            return hook == Hook.DRAIN
                    ? done.moved(Phase.LENT, at, "the drain hook says the platform has freed it")
                    : done.moved(Phase.PLATFORM, at, "released to the platform");
        }
        if (result.failure().isEmpty() && hook == Hook.DRAIN && result.exit() == HookResult.BUSY) {
            return r.retried(
                    "the platform is still busy on it (drain hook exit 75), asked again at " + now.plus(busyRetry),
                    "",
                    at,
                    result.output(),
                    now.plus(busyRetry).toString());
        }
        Instant next = now.plus(backoff(r.attempts()));
        String error = result.failure().isEmpty()
                ? "the %s hook exited with status %d%s".formatted(name, result.exit(), lastLine(result.output()))
                : "the %s hook %s".formatted(name, result.failure());
        return r.retried(
                "the %s hook failed; it runs again at %s".formatted(name, next),
                error,
                at,
                result.output(),
                next.toString());
    }

    static Duration backoff(int attempts) {
        Duration d = FIRST_BACKOFF.multipliedBy(1L << Math.min(attempts, 10));
        return d.compareTo(LONGEST_BACKOFF) > 0 ? LONGEST_BACKOFF : d;
    }

    private static boolean due(LendingRecord r, Instant now) {
        return r.nextTry().isEmpty() || !now.isBefore(Instant.parse(r.nextTry()));
    }

    private static Decision stay(LendingRecord r) {
        return new Decision(r, Hook.NONE);
    }

    private static String whyNotRunning(SlurmNodeState s) {
        if (s.drainedBySomeoneElse()) {
            return "drained in Slurm by someone else (\"%s\"): slurmlet never lifts a drain it did not set"
                    .formatted(s.reason());
        }
        if (s.unreachable()) {
            return "slurmctld shows it " + s.state();
        }
        return "";
    }

    private static String jobs(List<String> jobs) {
        return named(jobs) + " still running";
    }

    /** {@code job 7 of alice}, {@code jobs 7 of alice, 8 of bob, 9 of carol and 2 more}. */
    private static String named(List<String> jobs) {
        String shown = String.join(", ", jobs.subList(0, Math.min(3, jobs.size())));
        return (jobs.size() == 1 ? "job " : "jobs ")
                + shown
                + (jobs.size() > 3 ? " and %d more".formatted(jobs.size() - 3) : "");
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        String last = lines[lines.length - 1].strip();
        return last.isEmpty() ? "" : ": " + last;
    }
}
