package io.slurmlet.agent.slurm;

import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Slurm's rules for its daemons when its files change: which changes slurmctld and slurmd read only
 * at start (a restart), and which they take from the controller's {@code scontrol reconfigure};
 * {@link #effects} applies them to the files a pass writes.
 */
final class RestartRules {

    private RestartRules() {}

    /**
     * slurm.conf keys for which every daemon is restarted rather than reconfigured. Of these, the
     * measurements in {@link ReconfigureTable} found SelectTypeParameters refused by 22.05's
     * reconfigure, and PrologFlags, ProctrackType and TaskPlugin taken by a reconfigure on 22.05,
     * 24.11 and 26.05 (new steps get them); they stay here until a restart is shown needless for the
     * jobs already running too. A change of the node set is {@link ReconfigureTable}'s alone.
     */
    static final Set<String> RESTART_KEYS = Set.of(
            "authtype",
            "credtype",
            "slurmctldhost",
            "controlmachine",
            "slurmctldport",
            "slurmdport",
            "selecttype",
            "selecttypeparameters",
            "proctracktype",
            "taskplugin",
            "prologflags",
            "statesavelocation",
            "slurmdspooldir",
            "slurmuser",
            "grestypes",
            "switchtype");

    /**
     * What Slurm's daemons on one machine are to do once its files are written: the one decision
     * that {@link SlurmDiff#diff} turns into actions and a settings preview shows, so the two cannot disagree. A
     * daemon that does not run is started; one that runs is restarted where Slurm needs it (a
     * slurm.conf key it reads only at start; gres.conf or cgroup.conf for slurmd), else it takes
     * the change from the {@code scontrol reconfigure} the controller's agent issues. Nothing is
     * ever stopped.
     *
     * @param written  each file about to be written, by path, with what it holds now ("" when absent)
     * @param files    the plan's files, as they will be: empty leaves Slurm alone, as {@link SlurmDiff#diff} does
     * @param services the plan's units, in the order the agent acts on them
     * @param running  the units of slurmctld and slurmd that run now
     * @return an action for each daemon that gets one, in the order of {@code services}
     */
    public static List<DaemonChange> effects(
            Map<String, String> written, Map<String, String> files, List<String> services, Set<String> running) {
        if (files.isEmpty()) {
            return List.of();
        }
        List<String> restartKeys = written.containsKey(SlurmDiff.SLURM_CONF)
                ? restartKeys(written.get(SlurmDiff.SLURM_CONF), files.getOrDefault(SlurmDiff.SLURM_CONF, ""))
                : List.of();
        List<String> slurmdOnly = new ArrayList<>();
        for (String file : List.of(SlurmDiff.GRES_CONF, SlurmDiff.CGROUP_CONF)) {
            if (written.containsKey(file)) {
                slurmdOnly.add(Path.of(file).getFileName().toString());
            }
        }
        String keys = "slurm.conf changes " + String.join(", ", restartKeys);
        String nodeSet = nodeSetChangeNeedingRestart(written, files);
        List<DaemonChange> effects = new ArrayList<>();
        for (String unit : services) {
            if (!SlurmDiff.DAEMONS.contains(unit)) {
                continue;
            }
            boolean controller = unit.equals("slurmctld");
            if (!running.contains(unit)) {
                effects.add(new DaemonChange(unit, SettingsPreview.Action.START, unit + " does not run here yet"));
            } else if (written.isEmpty()) {
                continue;
            } else if (!restartKeys.isEmpty()) {
                effects.add(new DaemonChange(
                        unit, SettingsPreview.Action.RESTART, keys + ", which " + unit + " reads only at start"));
            } else if (controller && nodeSet != null) {
                effects.add(new DaemonChange(unit, SettingsPreview.Action.RESTART, nodeSet));
            } else if (!controller && !slurmdOnly.isEmpty()) {
                effects.add(new DaemonChange(
                        unit,
                        SettingsPreview.Action.RESTART,
                        "%s change%s, which slurmd reads only at start"
                                .formatted(String.join(" and ", slurmdOnly), slurmdOnly.size() == 1 ? "s" : "")));
            } else {
                effects.add(new DaemonChange(
                        unit,
                        SettingsPreview.Action.RECONFIGURE,
                        controller
                                ? "scontrol reconfigure: slurmctld reads the new files and has every slurmd read them too"
                                : "the controller's scontrol reconfigure has it read the new files"));
            }
        }
        return effects;
    }

    /**
     * Why slurmctld must be restarted rather than reconfigured for a change of the cluster's node
     * set (NodeName lines added or removed), or null where a reconfigure takes it: slurmctld 22.05
     * ends on such a reconfigure ("MaxNodeCount has changed ... slurmctld must be restarted"),
     * 24.11 and 26.05 take it ({@link ReconfigureTable}).
     */
    static String nodeSetChangeNeedingRestart(Map<String, String> written, Map<String, String> files) {
        String old = written.get(SlurmDiff.SLURM_CONF);
        String next = files.get(SlurmDiff.SLURM_CONF);
        if (old == null || old.isEmpty() || next == null) {
            return null;
        }
        Set<String> was = new TreeSet<>(ReconfigureTable.nodeNames(old));
        Set<String> now = new TreeSet<>(ReconfigureTable.nodeNames(next));
        var release = ReconfigureTable.releaseOf(next);
        if (was.equals(now)
                || release.isEmpty()
                || ReconfigureTable.need(release.get(), ReconfigureTable.Change.NODE_SET)
                        != ReconfigureTable.Need.SLURMCTLD_RESTART) {
            return null;
        }
        return ("slurm.conf adds or removes NodeName lines, which slurmctld %s takes only at a restart (a reconfigure "
                        + "would end it); then a reconfigure has every slurmd read them")
                .formatted(release.get().release());
    }

    /** The action that does both {@code a} and {@code b}: a start reads everything, a restart all a reconfigure does. */
    static DaemonChange covering(DaemonChange a, DaemonChange b) {
        for (SettingsPreview.Action action : List.of(SettingsPreview.Action.START, SettingsPreview.Action.RESTART)) {
            if (a.action() == action) {
                return a;
            }
            if (b.action() == action) {
                return b;
            }
        }
        return b;
    }

    /** Whether the change from {@code old} to {@code next} touches a key a daemon reads only at start. */
    static boolean needsRestart(String old, String next) {
        return !restartKeys(old, next).isEmpty();
    }

    /** The keys a daemon reads only at start that differ between {@code old} and {@code next}, as {@code next} spells them. */
    static List<String> restartKeys(String old, String next) {
        Map<String, String[]> was = restartLines(old);
        Map<String, String[]> now = restartLines(next);
        Set<String> keys = new TreeSet<>(was.keySet());
        keys.addAll(now.keySet());
        List<String> changed = new ArrayList<>();
        for (String key : keys) {
            String[] a = was.get(key);
            String[] b = now.get(key);
            if (a == null || b == null || !a[1].equals(b[1])) {
                changed.add((b != null ? b : a)[0]);
            }
        }
        return changed;
    }

    /** Each restart key's line: lower-case key → {key as written, value}. */
    private static Map<String, String[]> restartLines(String conf) {
        Map<String, String[]> lines = new TreeMap<>();
        for (String line : conf.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#")) {
                String key = line.substring(0, eq).strip();
                if (RESTART_KEYS.contains(key.toLowerCase(Locale.ROOT))) {
                    lines.put(
                            key.toLowerCase(Locale.ROOT),
                            new String[] {key, line.substring(eq + 1).strip()});
                }
            }
        }
        return lines;
    }
}
