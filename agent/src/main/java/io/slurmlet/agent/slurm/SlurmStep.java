package io.slurmlet.agent.slurm;

import io.slurmlet.model.api.SettingsPreview.Action;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.plan.ManagedFile;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.model.plan.Role;
import io.slurmlet.agent.reconcile.Failpoints;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Slurm's files as the plan has them, and slurmctld / slurmd enabled and running. A change Slurm
 * takes with {@code scontrol reconfigure} is applied so, issued once by the controller's agent; a
 * daemon is restarted only where Slurm needs it (keys it reads only at start, gres.conf and
 * cgroup.conf for slurmd; on 22.05 slurmctld for NodeName lines added or removed, which would end
 * it on a reconfigure: {@link ReconfigureTable}). Nothing is stopped: a daemon the plan leaves out
 * keeps running, and no job is touched.
 *
 * <p>What a pass decides to do to the daemons is written down (the state directory's
 * {@code slurm/owed}) before the files are: an agent killed between the files and the restart
 * finds, when it comes back, the restart it owes, though the files then match. Once the files are
 * written, each owed restart notes the daemon's systemd invocation; the restart is done when the
 * unit has another ({@link Services#invocation}: whoever restarted it, it read the new files). An
 * owed restart without one is done again. A reconfigure is done once {@code scontrol reconfigure}
 * succeeded. Nothing of this is kept in memory.
 */
public final class SlurmStep implements Step {

    /**
     * slurm.conf keys for which every daemon is restarted rather than reconfigured. Of these, the
     * measurements in {@link ReconfigureTable} found SelectTypeParameters refused by 22.05's
     * reconfigure, and PrologFlags, ProctrackType and TaskPlugin taken by a reconfigure on 22.05,
     * 24.11 and 26.05 (new steps get them); they stay here until a restart is shown needless for the
     * jobs already running too. A change of the node set is {@link ReconfigureTable}'s alone.
     */
    static final Set<String> RESTART_KEYS = Set.of("authtype", "credtype", "slurmctldhost", "controlmachine",
            "slurmctldport", "slurmdport", "selecttype", "selecttypeparameters", "proctracktype", "taskplugin",
            "prologflags", "statesavelocation", "slurmdspooldir", "slurmuser", "grestypes", "switchtype");

    static final String SLURM_CONF = "/etc/slurm/slurm.conf";
    static final String GRES_CONF = "/etc/slurm/gres.conf";
    static final String CGROUP_CONF = "/etc/slurm/cgroup.conf";
    /** The units this step starts and restarts; munge is the munge step's. */
    static final Set<String> DAEMONS = Set.of("slurmctld", "slurmd");
    static final Duration RECONFIGURE_DEADLINE = Duration.ofSeconds(60);

    private final Files files;
    private final Services services;
    private final Commands commands;
    private final Path root;
    /** The restarts and the controller's reconfigure decided and not yet done: {@link Owed}. */
    private final Path owedFile;

    /**
     * @param stateDir where the daemons' owed restarts are written down (root-only)
     */
    public SlurmStep(Files files, Services services, Commands commands, Path root, Path stateDir) {
        this.files = files;
        this.services = services;
        this.commands = commands;
        this.root = root;
        this.owedFile = stateDir.resolve("slurm").resolve("owed");
    }

    /**
     * A restart or the controller's reconfigure owed and not known to be done, one line of the owed
     * file: {@code UNIT ACTION INVOCATION WHY}, the invocation {@code -} until the files are written.
     *
     * @param invocation for a restart, the daemon's systemd invocation once the new files were
     *                   written: the restart is done when the unit has another; "" until then
     */
    record Owed(DaemonChange change, String invocation) {

        String key() {
            return change.unit() + " " + change.action();
        }

        String line() {
            return "%s %s %s %s".formatted(change.unit(), change.action(), invocation.isEmpty() ? "-" : invocation, change.why());
        }

        static Optional<Owed> parse(String line) {
            String[] f = line.split(" ", 4);
            try {
                Action action = Action.valueOf(f[1]);
                if (action != Action.RESTART && action != Action.RECONFIGURE || !f[2].matches("-|[0-9a-f]{32}")) {
                    return Optional.empty();
                }
                return Optional.of(new Owed(new DaemonChange(f[0], action, f.length > 3 ? f[3] : ""), f[2].equals("-") ? "" : f[2]));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public Outcome apply(NodePlan plan) {
        if (plan.files().isEmpty()) {
            return Outcome.unchanged(name(), plan.roles().isEmpty()
                    ? "no Slurm role here" : "Slurm's files wait for the controller's Slurm version");
        }
        boolean controls = plan.runs(Role.CONTROLLER);
        List<String> done = new ArrayList<>();
        Map<String, String> written = new TreeMap<>();
        Map<String, DaemonChange> effects = new LinkedHashMap<>();
        Map<String, Owed> before;
        Map<String, Owed> owed;
        try {
            before = readOwed();
        } catch (IOException e) {
            return Outcome.failed(name(), "cannot read what the daemons are owed (%s): %s".formatted(owedFile, e.getMessage()));
        }
        try {
            for (ManagedFile file : plan.slurmFiles()) {
                Optional<Files.Stat> now = files.stat(ManagedFiles.under(root, file.path()));
                if (!ManagedFiles.holds(now, file)) {
                    written.put(file.path(), now.map(st -> new String(st.content(), StandardCharsets.UTF_8)).orElse(""));
                }
            }
            Set<String> running = new HashSet<>();
            for (String unit : plan.services()) {
                if (DAEMONS.contains(unit) && services.isActive(unit)) {
                    running.add(unit);
                }
            }
            owed = stillOwed(before, plan);
            owed.values().forEach(o -> effects.merge(o.change().unit(), o.change(), SlurmStep::covering));
            effects(written, plan.files(), plan.services(), running).forEach(e -> effects.merge(e.unit(), e, SlurmStep::covering));
            for (DaemonChange e : effects.values()) {
                if (e.action() == Action.RESTART || e.action() == Action.RECONFIGURE && e.unit().equals("slurmctld") && controls) {
                    owed.putIfAbsent(e.unit() + " " + e.action(), new Owed(e, ""));
                }
            }
            String nodeSet = nodeSetChangeNeedingRestart(written, plan.files());
            if (controls && nodeSet != null && effects.containsKey("slurmctld") && effects.get("slurmctld").action() == Action.RESTART) {
                // The slurmds still hold the old node set after slurmctld's restart: the reconfigure a
                // later release does in one, owed from now on as well.
                owed.putIfAbsent("slurmctld RECONFIGURE", new Owed(new DaemonChange("slurmctld", Action.RECONFIGURE,
                        "every slurmd reads the new node set"), ""));
            }
        } catch (IOException e) {
            return Outcome.failed(name(), "cannot read Slurm's files: " + e.getMessage());
        } catch (SystemException e) {
            return Outcome.failed(name(), e.getMessage());
        }
        try {
            // Written down before the files: an agent stopped after them still owes what they need.
            writeOwed(owed);
            for (ManagedFile file : plan.slurmFiles()) {
                if (written.containsKey(file.path())) {
                    ManagedFiles.write(files, ManagedFiles.under(root, file.path()), file);
                }
            }
        } catch (IOException e) {
            return Outcome.failed(name(), "cannot write Slurm's files: " + e.getMessage());
        }
        if (!written.isEmpty()) {
            done.add("wrote " + String.join(", ", written.keySet().stream()
                    .map(p -> Path.of(p).getFileName().toString()).toList()));
        }
        Map<String, Owed> left = new LinkedHashMap<>(owed);
        try {
            // The invocations that read the old files: a restart is done when the unit has another.
            Map<String, Owed> noted = new LinkedHashMap<>(left);
            for (var e : left.entrySet()) {
                if (e.getValue().change().action() == Action.RESTART && e.getValue().invocation().isEmpty()) {
                    noted.put(e.getKey(), new Owed(e.getValue().change(), services.invocation(e.getValue().change().unit())));
                }
            }
            writeOwed(noted);
            left = noted;
            if (!written.isEmpty()) {
                Failpoints.hold(Failpoints.FILES_WRITTEN);
            }
            for (String unit : plan.services()) {
                if (!DAEMONS.contains(unit)) {
                    continue;
                }
                if (!services.isEnabled(unit)) {
                    services.enable(unit);
                    done.add("enabled " + unit);
                }
                DaemonChange effect = effects.get(unit);
                if (effect != null && effect.action() == Action.START) {
                    services.start(unit);
                    left.remove(unit + " " + Action.RESTART);
                    done.add("started " + unit);
                } else if (left.containsKey(unit + " " + Action.RESTART)) {
                    services.restart(unit);
                    left.remove(unit + " " + Action.RESTART);
                    done.add("restarted " + unit + " (a change it reads only at start)");
                }
            }
            if (controls && left.containsKey("slurmctld " + Action.RECONFIGURE)) {
                commands.runChecked(List.of("scontrol", "reconfigure"), RECONFIGURE_DEADLINE);
                left.remove("slurmctld " + Action.RECONFIGURE);
                done.add("scontrol reconfigure");
            }
        } catch (SystemException e) {
            return Outcome.failed(name(), e.getMessage() + keptOrNot(left));
        } catch (IOException e) {
            return Outcome.failed(name(), "cannot write down what the daemons are owed (%s): %s".formatted(owedFile, e.getMessage()));
        }
        String kept = keptOrNot(left);
        if (!kept.isEmpty()) {
            done.add(kept.substring(2));
        }
        return done.isEmpty()
                ? Outcome.unchanged(name(), "Slurm's files match and its daemons run")
                : Outcome.changed(name(), String.join("; ", done));
    }

    /** Writes down what is left owed; "" when that worked, else a sentence for the outcome. */
    private String keptOrNot(Map<String, Owed> left) {
        try {
            writeOwed(left);
            return "";
        } catch (IOException e) {
            return "; could not write down in %s what is done (%s): a reconfigure may be issued once more".formatted(owedFile,
                    e.getMessage());
        }
    }

    /** What the owed file says, by unit and action; a line that cannot be read is dropped (the files' diff decides again). */
    private Map<String, Owed> readOwed() throws IOException {
        Map<String, Owed> owed = new LinkedHashMap<>();
        Optional<Files.Stat> file = files.stat(owedFile);
        if (file.isPresent()) {
            new String(file.get().content(), StandardCharsets.UTF_8).lines().map(Owed::parse).flatMap(Optional::stream)
                    .forEach(o -> owed.put(o.key(), o));
        }
        return owed;
    }

    /**
     * Of what was owed, what still is: the plan's daemons only, and no restart of a daemon whose
     * unit has had another invocation since the new files were written (someone, or an earlier pass,
     * restarted it).
     */
    private Map<String, Owed> stillOwed(Map<String, Owed> owed, NodePlan plan) throws SystemException {
        Map<String, Owed> still = new LinkedHashMap<>();
        for (Owed o : owed.values()) {
            String unit = o.change().unit();
            if (!plan.services().contains(unit) || !DAEMONS.contains(unit)) {
                continue;
            }
            if (o.change().action() == Action.RESTART && !o.invocation().isEmpty()
                    && !o.invocation().equals(services.invocation(unit))) {
                continue;
            }
            still.put(o.key(), o);
        }
        return still;
    }

    /** Writes down {@code next} (atomically, root-only) unless the file says just that; none owed: no file. */
    private void writeOwed(Map<String, Owed> next) throws IOException {
        StringBuilder text = new StringBuilder();
        next.values().forEach(o -> text.append(o.line()).append('\n'));
        byte[] wanted = text.toString().getBytes(StandardCharsets.UTF_8);
        Optional<Files.Stat> now = files.stat(owedFile);
        if (next.isEmpty()) {
            if (now.isPresent()) {
                files.delete(owedFile);
            }
        } else if (now.isEmpty() || !Arrays.equals(now.get().content(), wanted)) {
            files.write(owedFile, wanted, "rw-------", "root", "root");
        }
    }

    /**
     * What Slurm's daemons on one machine are to do once its files are written: the one decision
     * that {@link #apply} acts on and a settings preview shows, so the two cannot disagree. A
     * daemon that does not run is started; one that runs is restarted where Slurm needs it (a
     * slurm.conf key it reads only at start; gres.conf or cgroup.conf for slurmd), else it takes
     * the change from the {@code scontrol reconfigure} the controller's agent issues. Nothing is
     * ever stopped.
     *
     * @param written  each file about to be written, by path, with what it holds now ("" when absent)
     * @param files    the plan's files, as they will be: empty leaves Slurm alone, as {@link #apply} does
     * @param services the plan's units, in the order the agent acts on them
     * @param running  the units of slurmctld and slurmd that run now
     * @return an action for each daemon that gets one, in the order of {@code services}
     */
    public static List<DaemonChange> effects(Map<String, String> written, Map<String, String> files,
                                             List<String> services, Set<String> running) {
        if (files.isEmpty()) {
            return List.of();
        }
        List<String> restartKeys = written.containsKey(SLURM_CONF)
                ? restartKeys(written.get(SLURM_CONF), files.getOrDefault(SLURM_CONF, "")) : List.of();
        List<String> slurmdOnly = new ArrayList<>();
        for (String file : List.of(GRES_CONF, CGROUP_CONF)) {
            if (written.containsKey(file)) {
                slurmdOnly.add(Path.of(file).getFileName().toString());
            }
        }
        String keys = "slurm.conf changes " + String.join(", ", restartKeys);
        String nodeSet = nodeSetChangeNeedingRestart(written, files);
        List<DaemonChange> effects = new ArrayList<>();
        for (String unit : services) {
            if (!DAEMONS.contains(unit)) {
                continue;
            }
            boolean controller = unit.equals("slurmctld");
            if (!running.contains(unit)) {
                effects.add(new DaemonChange(unit, Action.START, unit + " does not run here yet"));
            } else if (written.isEmpty()) {
                continue;
            } else if (!restartKeys.isEmpty()) {
                effects.add(new DaemonChange(unit, Action.RESTART, keys + ", which " + unit + " reads only at start"));
            } else if (controller && nodeSet != null) {
                effects.add(new DaemonChange(unit, Action.RESTART, nodeSet));
            } else if (!controller && !slurmdOnly.isEmpty()) {
                effects.add(new DaemonChange(unit, Action.RESTART, "%s change%s, which slurmd reads only at start"
                        .formatted(String.join(" and ", slurmdOnly), slurmdOnly.size() == 1 ? "s" : "")));
            } else {
                effects.add(new DaemonChange(unit, Action.RECONFIGURE, controller
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
        String old = written.get(SLURM_CONF);
        String next = files.get(SLURM_CONF);
        if (old == null || old.isEmpty() || next == null) {
            return null;
        }
        Set<String> was = new TreeSet<>(ReconfigureTable.nodeNames(old));
        Set<String> now = new TreeSet<>(ReconfigureTable.nodeNames(next));
        var release = ReconfigureTable.releaseOf(next);
        if (was.equals(now) || release.isEmpty()
                || ReconfigureTable.need(release.get(), ReconfigureTable.Change.NODE_SET) != ReconfigureTable.Need.SLURMCTLD_RESTART) {
            return null;
        }
        return ("slurm.conf adds or removes NodeName lines, which slurmctld %s takes only at a restart (a reconfigure "
                + "would end it); then a reconfigure has every slurmd read them").formatted(release.get().release());
    }

    /** The action that does both {@code a} and {@code b}: a start reads everything, a restart all a reconfigure does. */
    private static DaemonChange covering(DaemonChange a, DaemonChange b) {
        for (Action action : List.of(Action.START, Action.RESTART)) {
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
                    lines.put(key.toLowerCase(Locale.ROOT), new String[] {key, line.substring(eq + 1).strip()});
                }
            }
        }
        return lines;
    }
}
