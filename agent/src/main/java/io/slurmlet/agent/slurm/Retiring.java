package io.slurmlet.agent.slurm;

import io.slurmlet.agent.slurm.SlurmDiff.Seen;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The retiring part of {@link SlurmDiff#diff}: the daemons of a role this machine no longer has
 * ({@link Wanted#retired}) that run or are enabled here from slurmlet's files ({@link
 * Seen#leftovers}). Each that no job needs is stopped and disabled before the files change; each
 * that jobs still need stays, said so, and while that is an old slurmctld this machine's files stay
 * as they are too. A site's own daemons are never among them.
 *
 * @param actions           the daemons that go now
 * @param kept              a sentence for each that stays for its jobs
 * @param oldControllerKept whether one that stays is slurmctld
 */
record Retiring(List<Retire> actions, List<String> kept, boolean oldControllerKept) {

    Retiring {
        actions = List.copyOf(actions);
        kept = List.copyOf(kept);
    }

    static Retiring of(Wanted plan, Seen seen) {
        List<Retire> retire = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        boolean oldControllerKept = false;
        for (var leftover : seen.leftovers().entrySet()) {
            String unit = leftover.getKey();
            if (!plan.retired().contains(unit)) {
                continue;
            }
            String why = unit.equals("slurmctld")
                    ? "this machine is not the controller"
                    : "this machine is not a node of Slurm";
            if (leftover.getValue().isEmpty()) {
                retire.add(new Retire(
                        new DaemonChange(unit, SettingsPreview.Action.STOP, why),
                        seen.running().contains(unit),
                        seen.enabled().contains(unit)));
            } else {
                kept.add("%s stops here once no job needs it (%s): %s"
                        .formatted(unit, String.join(", ", leftover.getValue()), why));
                oldControllerKept |= unit.equals("slurmctld");
            }
        }
        return new Retiring(retire, kept, oldControllerKept);
    }

    /** Each daemon {@code next} retires that runs or is enabled, with no job said to need it. */
    static Map<String, List<String>> free(Wanted next, Set<String> running, Set<String> enabled) {
        Map<String, List<String>> leftovers = new TreeMap<>();
        next.retired().stream()
                .filter(u -> running.contains(u) || enabled.contains(u))
                .forEach(u -> leftovers.put(u, List.of()));
        return leftovers;
    }

    /** How slurmlet's own Slurm files begin: a retired daemon is stopped only where it runs from them, never a site's own. */
    static final String OURS = ": written by slurmlet, with its generator for Slurm ";

    /** Whether {@code slurmConf}, a machine's slurm.conf, is one slurmlet wrote. */
    public static boolean ours(String slurmConf) {
        return slurmConf.lines().limit(3).anyMatch(l -> l.startsWith("# ") && l.contains(OURS));
    }

    /**
     * The host slurm.conf's first {@code SlurmctldHost} names ({@code n0} of {@code n0(10.0.0.1)}),
     * or empty: the slurmctld that squeue and scontrol ask there.
     */
    public static Optional<String> controllerOf(String slurmConf) {
        Matcher m = CONTROLLER_HOST.matcher(slurmConf);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static final Pattern CONTROLLER_HOST =
            Pattern.compile("(?mi)^\\s*(?:SlurmctldHost|ControlMachine)\\s*=\\s*([^\\s(#]+)");

    /**
     * A daemon of a role this machine no longer has, with no job that needs it: stopped where it runs,
     * disabled where it is enabled, before this machine's files change (an old slurmctld's queue is
     * asked through the slurm.conf that names it). The step asks again right before it stops it.
     */
    record Retire(DaemonChange change, boolean running, boolean enabled) implements SlurmAction {
        public String will() {
            return (running ? "stop " : "disable ") + change.unit();
        }

        public String did() {
            return (running ? "stopped " : "disabled ") + change.unit() + " (" + change.why() + ")";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return running ? Optional.of(change) : Optional.empty();
        }

        @Override
        public String failed(String error) {
            return "cannot stop " + change.unit() + ", which runs for a role this machine no longer has: " + error;
        }
    }
}
