package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.model.plan.NodePlan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The units step's pure half: a drop-in for each Slurm daemon the plan runs, so that systemd starts
 * it again itself when it crashes (Debian's and EPEL's slurmd and slurmctld units have no
 * {@code Restart=}). At most five starts a minute: a daemon that cannot start (slurmctld refusing
 * its state) is left failed for the agent's daemon watch, which backs off to 30 s, and for status to
 * say why, not restarted in a tight loop. The agent's own starts and restarts reset the count
 * first ({@code systemctl reset-failed}), so the limit never refuses one slurmlet decided. A
 * restart of slurmd keeps its jobs.
 */
public final class UnitsDiff {

    static final Set<String> DAEMONS = SlurmDiff.DAEMONS;

    private UnitsDiff() {
    }

    /** The drop-in's path for {@code unit}. */
    public static String dropIn(String unit) {
        return "/etc/systemd/system/" + unit + ".service.d/slurmlet-restart.conf";
    }

    /** Its content. */
    public static String text(String unit) {
        return "# Written by slurmlet: systemd starts " + unit + " again when it crashes" + (unit.equals("slurmd") ? " (its jobs go on)"
                : "") + ",\n# at most five times a minute (slurmlet's own starts reset the count).\n[Unit]\nStartLimitIntervalSec=60\nStartLimitBurst=5\n\n"
                + "[Service]\nRestart=on-failure\nRestartSec=2\n";
    }

    /** @param daemons the Slurm daemons the plan runs here */
    public record Wanted(List<String> daemons) {
    }

    public static Wanted desired(NodePlan plan) {
        return new Wanted(plan.services().stream().filter(DAEMONS::contains).toList());
    }

    /** @param dropIns each daemon's drop-in as it is, by unit; a missing one is absent */
    public record Seen(Map<String, String> dropIns) {
        public Seen {
            dropIns = Map.copyOf(dropIns);
        }
    }

    public static Seen assumed(Wanted wanted) {
        Map<String, String> d = new java.util.TreeMap<>();
        wanted.daemons().forEach(u -> d.put(u, text(u)));
        return new Seen(d);
    }

    public static Diff diff(Wanted wanted, Seen seen) {
        List<Write> writes = new ArrayList<>();
        for (String unit : wanted.daemons()) {
            if (!text(unit).equals(seen.dropIns().get(unit))) {
                writes.add(new Write(unit));
            }
        }
        return Diff.of(writes, wanted.daemons().isEmpty() ? "no Slurm daemon here"
                : String.join(", ", wanted.daemons()) + (wanted.daemons().size() == 1 ? " is" : " are") + " started again by systemd after a crash");
    }

    /** A daemon's drop-in written (systemd reads it at once; the daemon is not restarted for it). */
    record Write(String unit) implements Action {
        public String will() {
            return "have systemd start " + unit + " again itself when it crashes (Restart=on-failure)";
        }

        public String did() {
            return "wrote " + dropIn(unit);
        }
    }
}
