package io.slurmlet.agent.reconcile;

/**
 * What one reconcile step did: nothing (the machine already matched the plan), a change, or a
 * failure, with a sentence for status, health and {@code ctl slurm status}.
 *
 * @param step   the step's name, as {@code munge}
 * @param kind   unchanged, changed or failed
 * @param detail what matched, what was done, or why it failed (which command, what it printed)
 */
public record Outcome(String step, Kind kind, String detail) {

    public enum Kind {
        UNCHANGED,
        CHANGED,
        FAILED
    }

    public static Outcome unchanged(String step, String detail) {
        return new Outcome(step, Kind.UNCHANGED, detail);
    }

    public static Outcome changed(String step, String detail) {
        return new Outcome(step, Kind.CHANGED, detail);
    }

    public static Outcome failed(String step, String detail) {
        return new Outcome(step, Kind.FAILED, detail);
    }

    public boolean failed() {
        return kind == Kind.FAILED;
    }
}
