package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.slurm.conf.Layout;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.ManagedFile;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The slurm step's pure half: Slurm's files as the plan has them, and what slurmctld and slurmd
 * are to do for them (start, restart, or take them from the controller's {@code scontrol
 * reconfigure}), from what the machine holds ({@link Seen}): {@link SlurmStep} acts on these
 * actions, and a preview shows the same ones. Nothing is ever stopped.
 */
public final class SlurmDiff {

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

    static final String SLURM_CONF = "/etc/slurm/slurm.conf";
    static final String GRES_CONF = "/etc/slurm/gres.conf";
    static final String CGROUP_CONF = "/etc/slurm/cgroup.conf";
    /** The units this step starts and restarts; munge is the munge step's. */
    static final Set<String> DAEMONS = Set.of("slurmctld", "slurmd");

    /**
     * The drop-in by which systemd starts slurmctld or slurmd again when it crashes, also while the
     * agent is down (Debian's and SchedMD's units have no {@code Restart=}). Named to sort before a
     * site's own ({@code override.conf} of {@code systemctl edit}), which therefore wins. A change of
     * it takes a {@code systemctl daemon-reload}, never a restart of the daemon.
     */
    public static String restartDropIn(String unit) {
        return "/etc/systemd/system/" + unit + ".service.d/10-slurmlet-restart.conf";
    }

    /** {@link #restartDropIn} as the file it is written as: {@link #RESTART_DROP_IN}, root's, 0644. */
    static ManagedFile restartDropInFile(String unit) {
        return ManagedFile.config(restartDropIn(unit), RESTART_DROP_IN);
    }

    /**
     * What {@link #restartDropIn} holds: a crash (a signal, a core dump, an exit code) is undone after
     * 1 s (the agent's daemon watch leaves a unit that waits for its own Restart= to systemd), a
     * stop never. Four starts within 30 s and systemd refuses the next, so a slurmctld on state it
     * cannot read is not kept crash-looping; the window is short, as every start counts, an admin's
     * {@code systemctl restart} too (ten minutes made CI's own restarts fail: FINDINGS.md).
     */
    public static final String RESTART_DROP_IN = """
            # Written by slurmlet: systemd starts this daemon again 1 s after it crashes (a signal, a
            # core dump, an exit code), also while slurmlet's agent is down; never one that was
            # stopped. After four starts within 30 s, systemd refuses the next (journalctl -u says
            # why). A drop-in of the site's that sorts after this one (override.conf, of systemctl
            # edit) has the last word.
            [Unit]
            StartLimitIntervalSec=30s
            StartLimitBurst=4

            [Service]
            Restart=on-failure
            RestartSec=1s
            """;

    private SlurmDiff() {}

    /**
     * A restart or the controller's reconfigure owed and not known to be done, one line of the owed
     * file: {@code UNIT ACTION INVOCATION WHY}, the invocation {@code -} until the files are written.
     *
     * @param invocation for a restart, the daemon's systemd invocation once the new files were
     *                   written: the restart is done when the unit has another; "" until then
     */
    public record Owed(DaemonChange change, String invocation) {

        String key() {
            return change.unit() + " " + change.action();
        }

        String line() {
            return "%s %s %s %s"
                    .formatted(change.unit(), change.action(), invocation.isEmpty() ? "-" : invocation, change.why());
        }

        static Optional<Owed> parse(String line) {
            String[] f = line.split(" ", 4);
            try {
                SettingsPreview.Action action = SettingsPreview.Action.valueOf(f[1]);
                if (action != SettingsPreview.Action.RESTART && action != SettingsPreview.Action.RECONFIGURE
                        || !f[2].matches("-|[0-9a-f]{32}")) {
                    return Optional.empty();
                }
                return Optional.of(new Owed(
                        new DaemonChange(f[0], action, f.length > 3 ? f[3] : ""), f[2].equals("-") ? "" : f[2]));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    /**
     * What a plan wants of Slurm's files and daemons here.
     *
     * @param role     whether the machine has a Slurm role
     * @param files    Slurm's files; empty until the controller's version is known
     * @param services the plan's units, in the order they are acted on
     * @param controls whether this is the controller (which issues the reconfigure)
     * @param node     the machine's name as Slurm's node (its restarts of slurmd wait for its jobs' launches)
     * @param retired  the daemons of a role the machine no longer has: stopped and disabled once no job needs them
     */
    public record Wanted(
            boolean role,
            List<ManagedFile> files,
            List<String> services,
            boolean controls,
            String node,
            List<String> retired) {

        public Wanted {
            retired = List.copyOf(retired);
        }

        /** Nothing retired, on an unnamed machine: the step's value before its first look, and tests'. */
        public Wanted(boolean role, List<ManagedFile> files, List<String> services, boolean controls) {
            this(role, files, services, controls, "", List.of());
        }

        Map<String, String> contents() {
            Map<String, String> c = new LinkedHashMap<>();
            files.forEach(f -> c.put(f.path(), f.content()));
            return c;
        }

        List<String> daemons() {
            return services.stream().filter(DAEMONS::contains).toList();
        }
    }

    /**
     * Where slurmctld keeps the name of the cluster its saved state belongs to. slurmctld refuses to
     * start when it differs from slurm.conf's ClusterName ("slurmctld has been started with
     * ClusterName=prod, but read slurmlet from the state files in StateSaveLocation"), though a
     * reconfigure takes the new name: so on the controller it is one of the step's files, the name
     * as slurmctld writes it (no newline, 0644, SlurmUser's), and a rename never leaves a slurmctld
     * that cannot start again. It is written only where it exists: slurmctld writes it at its first start.
     */
    static final String CLUSTER_NAME_FILE = Layout.DEBIAN.stateSaveLocation() + "/clustername";

    private static final Pattern CLUSTER_NAME = Pattern.compile("(?m)^ClusterName=(\\S+)$");

    public static Wanted desired(NodePlan plan) {
        List<ManagedFile> files = plan.slurm().files();
        boolean controls = plan.runs(Role.CONTROLLER);
        Matcher name = CLUSTER_NAME.matcher(plan.files().getOrDefault(SLURM_CONF, ""));
        if (controls && name.find()) {
            files = new ArrayList<>(files);
            files.add(new ManagedFile(CLUSTER_NAME_FILE, name.group(1), "0644", "slurm", "slurm", false));
        }
        return new Wanted(
                !plan.roles().isEmpty(),
                files,
                plan.slurm().services(),
                controls,
                plan.node(),
                plan.slurm().retired());
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
     * A file as it is on the machine.
     *
     * @param content its text
     */
    public record FileNow(String content, String mode, String owner, String group) {

        boolean holds(ManagedFile f) {
            return content.equals(f.content())
                    && mode.equals(f.permissions())
                    && owner.equals(f.owner())
                    && group.equals(f.group());
        }

        @Override
        public String toString() {
            return "FileNow[" + mode + " " + owner + ":" + group + "]";
        }
    }

    /**
     * What the machine holds of Slurm's files and daemons.
     *
     * @param files   each of the plan's files that exists, by path
     * @param running the plan's daemons that run
     * @param enabled the plan's daemons that are enabled
     * @param owed    what the owed file says is still owed, by unit and action
     * @param owedStale whether the owed file says more than that (done, or unreadable): written again
     * @param partitionJobs on the controller, the jobs slurmctld has (pending or running) in each
     *                  partition the plan's slurm.conf would drop; a partition whose jobs could not
     *                  be asked for has the error instead
     * @param leftovers each retired daemon that runs or is enabled here from slurmlet's files, with what
     *                  still needs it: the jobs an old slurmctld holds in its queue, or those running on
     *                  this machine for an old slurmd (or why they cannot be known); none: it can go
     * @param missingPlugins the plugins the wanted plugstack.conf requires that this machine does not have
     * @param dropIns   each of the plan's daemons' {@link #restartDropIn}, by unit, as it is where it exists
     */
    public record Seen(
            Map<String, FileNow> files,
            Set<String> running,
            Set<String> enabled,
            Map<String, Owed> owed,
            boolean owedStale,
            Map<String, List<String>> partitionJobs,
            Map<String, List<String>> leftovers,
            Set<String> missingPlugins,
            Map<String, FileNow> dropIns) {
        public Seen {
            missingPlugins = Set.copyOf(missingPlugins);
            dropIns = Map.copyOf(dropIns);
            files = Map.copyOf(files);
            running = Set.copyOf(running);
            enabled = Set.copyOf(enabled);
            owed = Collections.unmodifiableMap(new LinkedHashMap<>(owed));
            partitionJobs = Collections.unmodifiableMap(new TreeMap<>(partitionJobs));
            leftovers = Collections.unmodifiableMap(new TreeMap<>(leftovers));
        }

        public Seen(
                Map<String, FileNow> files,
                Set<String> running,
                Set<String> enabled,
                Map<String, Owed> owed,
                boolean owedStale,
                Map<String, List<String>> partitionJobs) {
            this(files, running, enabled, owed, owedStale, partitionJobs, Map.of());
        }

        public Seen(
                Map<String, FileNow> files,
                Set<String> running,
                Set<String> enabled,
                Map<String, Owed> owed,
                boolean owedStale,
                Map<String, List<String>> partitionJobs,
                Map<String, List<String>> leftovers) {
            this(files, running, enabled, owed, owedStale, partitionJobs, leftovers, Set.of(), Map.of());
        }
    }

    /** Where Slurm reads its SPANK plugins from, slurmd and every command alike. */
    public static final String PLUGSTACK = "/etc/slurm/plugstack.conf";

    private static final Pattern REQUIRED_PLUGIN = Pattern.compile("(?m)^required\\s+(/\\S+)");

    /** The plugins {@code plugstack} (plugstack.conf's text) requires: a job fails, and slurmd does not start, without one. */
    public static List<String> requiredPlugins(String plugstack) {
        List<String> paths = new ArrayList<>();
        Matcher m = REQUIRED_PLUGIN.matcher(plugstack);
        while (m.find()) {
            paths.add(m.group(1));
        }
        return paths;
    }

    private static final Pattern PARTITION = Pattern.compile("(?m)^PartitionName=(\\S+)");

    /**
     * The partitions the controller's slurm.conf holds now ({@code seen}) that {@code wanted}'s
     * drops: Slurm ends the jobs of a partition that leaves slurm.conf (a rename is a drop and an add).
     */
    public static List<String> droppedPartitions(Wanted wanted, Map<String, FileNow> seen) {
        FileNow now = seen.get(SLURM_CONF);
        if (!wanted.controls() || now == null) {
            return List.of();
        }
        Set<String> kept = partitions(wanted.contents().getOrDefault(SLURM_CONF, ""));
        return partitions(now.content()).stream().filter(p -> !kept.contains(p)).toList();
    }

    /** Whether the slurm.conf the machine holds loads job_submit/all_partitions: then every job may name every partition. */
    public static boolean submitsToAll(Map<String, FileNow> seen) {
        FileNow now = seen.get(SLURM_CONF);
        return now != null && SUBMITS_TO_ALL.matcher(now.content()).find();
    }

    private static final Pattern SUBMITS_TO_ALL =
            Pattern.compile("(?mi)^\\s*JobSubmitPlugins\\s*=\\s*\"?[^#\\n]*\\ball_partitions\\b");

    private static Set<String> partitions(String slurmConf) {
        Set<String> names = new TreeSet<>();
        Matcher m = PARTITION.matcher(slurmConf);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * A machine that has made {@code wanted} true: what a preview assumes of one that holds its
     * current plan; each of its daemons that {@code next} retires is taken to need no job (the leader
     * refuses a controller move while its slurmctld holds jobs; the agent looks again before it stops one).
     */
    public static Seen assumed(Wanted wanted, Wanted next) {
        Map<String, FileNow> files = new LinkedHashMap<>();
        wanted.files()
                .forEach(f -> files.put(f.path(), new FileNow(f.content(), f.permissions(), f.owner(), f.group())));
        Set<String> daemons = new HashSet<>(wanted.daemons());
        return new Seen(
                files,
                daemons,
                daemons,
                Map.of(),
                false,
                Map.of(),
                freeLeftovers(next, daemons, daemons),
                Set.of(),
                ourDropIns(wanted));
    }

    /** The restart drop-ins of a machine that applies {@code plan}: slurmlet's, for each daemon it runs. */
    private static Map<String, FileNow> ourDropIns(Wanted plan) {
        Map<String, FileNow> dropIns = new LinkedHashMap<>();
        if (!plan.files().isEmpty()) {
            for (String unit : plan.daemons()) {
                ManagedFile f = restartDropInFile(unit);
                dropIns.put(unit, new FileNow(f.content(), f.permissions(), f.owner(), f.group()));
            }
        }
        return dropIns;
    }

    /** Each daemon {@code next} retires that runs or is enabled, with no job said to need it. */
    private static Map<String, List<String>> freeLeftovers(Wanted next, Set<String> running, Set<String> enabled) {
        Map<String, List<String>> leftovers = new TreeMap<>();
        next.retired().stream()
                .filter(u -> running.contains(u) || enabled.contains(u))
                .forEach(u -> leftovers.put(u, List.of()));
        return leftovers;
    }

    /**
     * What a machine reports of {@code seen}: each file by its digest (a secret's by none), its
     * text where it is short and no secret, the daemons, and what is owed them.
     *
     * @param wanted what the pass that saw it compared it with (which files hold a secret)
     */
    public static SlurmSeen report(Seen seen, Wanted wanted) {
        Set<String> secret = new HashSet<>();
        wanted.files().stream().filter(ManagedFile::secret).forEach(f -> secret.add(f.path()));
        List<SlurmSeen.File> files = new ArrayList<>();
        for (var e : new TreeMap<>(seen.files()).entrySet()) {
            FileNow f = e.getValue();
            boolean hidden = secret.contains(e.getKey());
            boolean shortLine = f.content().length() <= SlurmSeen.TEXT_MAX
                    && f.content().chars().allMatch(c -> c >= 0x20 && c < 0x7f);
            files.add(new SlurmSeen.File(
                    e.getKey(),
                    hidden ? "" : ManagedFiles.sha256(f.content()),
                    hidden || !shortLine ? "" : f.content(),
                    f.mode(),
                    f.owner(),
                    f.group()));
        }
        for (var e : new TreeMap<>(seen.dropIns()).entrySet()) {
            FileNow f = e.getValue();
            files.add(new SlurmSeen.File(
                    restartDropIn(e.getKey()), ManagedFiles.sha256(f.content()), "", f.mode(), f.owner(), f.group()));
        }
        return new SlurmSeen(
                files,
                new TreeSet<>(seen.running()).stream().toList(),
                new TreeSet<>(seen.enabled()).stream().toList(),
                seen.owed().values().stream().map(Owed::line).toList(),
                seen.owedStale());
    }

    /**
     * A machine's report, as the slurm step's {@link Seen}: each file's content is its text, or the
     * content of the plan before or after the change that has its digest; a file that holds
     * neither (changed by hand, a write that failed, a machine given its role back) is taken to
     * hold the plan's before (or the new one, where the plan before had none: nothing is claimed of
     * it) and named in {@link Reported#unknown}. A secret is taken to hold the plan's.
     */
    public static Reported fromReport(SlurmSeen report, Wanted before, Wanted after) {
        Map<String, List<String>> known = new LinkedHashMap<>();
        Map<String, String> was = before.contents();
        for (Wanted w : List.of(before, after)) {
            w.files()
                    .forEach(f -> known.computeIfAbsent(f.path(), p -> new ArrayList<>())
                            .add(f.content()));
        }
        Map<String, FileNow> files = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        Map<String, FileNow> dropIns = new LinkedHashMap<>();
        for (SlurmSeen.File f : report.files()) {
            Optional<String> daemon = DAEMONS.stream()
                    .filter(u -> restartDropIn(u).equals(f.path()))
                    .findFirst();
            if (daemon.isPresent()) {
                // Not one of the plan's files: ours, or another text (written again); an older agent reports none.
                dropIns.put(
                        daemon.get(),
                        new FileNow(
                                ManagedFiles.sha256(RESTART_DROP_IN).equals(f.digest()) ? RESTART_DROP_IN : "",
                                f.mode(),
                                f.owner(),
                                f.group()));
                continue;
            }
            List<String> candidates = known.getOrDefault(f.path(), List.of());
            Optional<String> content =
                    !f.text().isEmpty() && ManagedFiles.sha256(f.text()).equals(f.digest())
                            ? Optional.of(f.text())
                            : candidates.stream()
                                    .filter(c -> f.digest().isEmpty()
                                            || ManagedFiles.sha256(c).equals(f.digest()))
                                    .findFirst();
            if (content.isEmpty()) {
                unknown.add(f.path());
            }
            // Unknown: taken to hold its plan of before; where that had none (a machine given a role back), the new
            // one, so that nothing is claimed of what its daemons do for a file nobody knows.
            files.put(
                    f.path(),
                    new FileNow(
                            content.orElse(
                                    was.getOrDefault(f.path(), after.contents().getOrDefault(f.path(), ""))),
                            f.mode(),
                            f.owner(),
                            f.group()));
        }
        Map<String, Owed> owed = new LinkedHashMap<>();
        report.owed().stream().map(Owed::parse).flatMap(Optional::stream).forEach(o -> owed.put(o.key(), o));
        // A daemon the new plan retires that the machine reports running or enabled: taken to be slurmlet's and free to
        // go (the leader refuses a controller move while its slurmctld holds jobs); the agent looks again before it
        // stops it.
        return new Reported(
                new Seen(
                        files,
                        Set.copyOf(report.running()),
                        Set.copyOf(report.enabled()),
                        owed,
                        report.owedStale(),
                        Map.of(),
                        freeLeftovers(after, Set.copyOf(report.running()), Set.copyOf(report.enabled())),
                        Set.of(),
                        dropIns),
                List.copyOf(unknown));
    }

    /**
     * A report read back.
     *
     * @param unknown the files whose content the report did not let the leader know
     */
    public record Reported(Seen seen, List<String> unknown) {}

    /**
     * The owed restarts recorded (before the files), the files, the daemons' invocations noted,
     * then each daemon started or restarted in the plan's order, then the controller's reconfigure.
     */
    public static Diff diff(Wanted plan, Seen seen) {
        List<SlurmAction> retire = new ArrayList<>();
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
        if (plan.files().isEmpty() || oldControllerKept) {
            // An old slurmctld that still holds jobs keeps this machine's files as they are: squeue here asks it, and
            // no
            // other, only while slurm.conf still names this machine the controller.
            Diff left = Diff.of(
                    List.copyOf(retire),
                    plan.files().isEmpty()
                            ? (plan.role()
                                    ? "Slurm's files wait for the controller's Slurm version"
                                    : "no Slurm role here")
                            : "Slurm's files wait for the old slurmctld here to stop");
            return kept.isEmpty() ? left : left.waitingFor(kept);
        }
        if (!seen.missingPlugins().isEmpty()) {
            // A plan made from facts older than the machine (a reimaged one, one whose pyxis was removed): with that
            // plugstack.conf slurmd would not start and every job here would fail. The files stay as they are until the
            // plugin is here (the containers step builds it) or the leader, told by this machine's facts, leaves it
            // out.
            kept.add(
                    ("Slurm's files and daemons here wait: plugstack.conf is to require %s, which this machine does not have "
                                    + "as its Slurm loads it (slurmd would not start with it, and every job here would fail); they follow once it "
                                    + "is here or the leader's plan leaves it out")
                            .formatted(String.join(", ", new TreeSet<>(seen.missingPlugins()))));
            return Diff.of(List.copyOf(retire), "Slurm's files wait for a plugin plugstack.conf requires")
                    .waitingFor(kept);
        }
        // The cluster's name in slurmctld's state is kept only once slurmctld wrote it (at its first start it writes
        // its
        // own), and only its name: 24.11 and later keep the cluster's id after it ("slurmlet|1605"), which stays.
        List<ManagedFile> files = new ArrayList<>();
        for (ManagedFile f : plan.files()) {
            FileNow now = seen.files().get(f.path());
            if (!f.path().equals(CLUSTER_NAME_FILE)) {
                files.add(f);
            } else if (now != null) {
                int bar = now.content().indexOf('|');
                files.add(new ManagedFile(
                        f.path(),
                        f.content() + (bar < 0 ? "" : now.content().substring(bar)),
                        f.mode(),
                        f.owner(),
                        f.group(),
                        false));
            }
        }
        List<String> held = new ArrayList<>();
        if (plan.controls() && !seen.partitionJobs().isEmpty()) {
            // The controller keeps its slurm.conf until the partitions it would drop hold no job: slurmctld reads
            // only that one for partitions (the compute nodes' copies do not matter to it).
            FileNow now = seen.files().get(SLURM_CONF);
            files.replaceAll(f -> f.path().equals(SLURM_CONF)
                    ? new ManagedFile(f.path(), now.content(), f.mode(), f.owner(), f.group(), f.secret())
                    : f);
            seen.partitionJobs()
                    .forEach((partition, jobs) ->
                            held.add(("the partition %s leaves slurm.conf here once no job is in it "
                                            + "(%s): Slurm ends the jobs of a partition that goes")
                                    .formatted(partition, String.join(", ", jobs))));
        }
        Wanted wanted = new Wanted(plan.role(), files, plan.services(), plan.controls(), plan.node(), plan.retired());
        // The daemons act on a change of content only; a file whose mode or owner alone differs is written again,
        // nothing more.
        Map<String, String> written = new TreeMap<>();
        Set<String> rewritten = new HashSet<>();
        for (ManagedFile f : wanted.files()) {
            FileNow now = seen.files().get(f.path());
            if (now == null || !now.content().equals(f.content())) {
                written.put(f.path(), now == null ? "" : now.content());
            } else if (!now.holds(f)) {
                rewritten.add(f.path());
            }
        }
        Map<String, Owed> owed = new LinkedHashMap<>(seen.owed());
        Map<String, DaemonChange> effects = new LinkedHashMap<>();
        owed.values().forEach(o -> effects.merge(o.change().unit(), o.change(), SlurmDiff::covering));
        effects(written, wanted.contents(), wanted.services(), seen.running())
                .forEach(e -> effects.merge(e.unit(), e, SlurmDiff::covering));
        for (DaemonChange e : effects.values()) {
            if (e.action() == SettingsPreview.Action.RESTART
                    || e.action() == SettingsPreview.Action.RECONFIGURE
                            && e.unit().equals("slurmctld")
                            && wanted.controls()) {
                owed.putIfAbsent(e.unit() + " " + e.action(), new Owed(e, ""));
            }
        }
        String nodeSet = nodeSetChangeNeedingRestart(written, wanted.contents());
        if (wanted.controls()
                && nodeSet != null
                && effects.containsKey("slurmctld")
                && effects.get("slurmctld").action() == SettingsPreview.Action.RESTART) {
            // The slurmds still hold the old node set after slurmctld's restart: the reconfigure a
            // later release does in one, owed from now on as well.
            owed.putIfAbsent(
                    "slurmctld RECONFIGURE",
                    new Owed(
                            new DaemonChange(
                                    "slurmctld",
                                    SettingsPreview.Action.RECONFIGURE,
                                    "every slurmd reads the new node set"),
                            ""));
        }
        List<SlurmAction> a = new ArrayList<>(retire);
        if (!owed.equals(seen.owed()) || seen.owedStale()) {
            a.add(new RecordOwed(List.copyOf(owed.values())));
        }
        List<ManagedFile> writes = new ArrayList<>();
        Map<String, Optional<String>> before = new LinkedHashMap<>();
        for (ManagedFile f : wanted.files()) {
            if (written.containsKey(f.path()) || rewritten.contains(f.path())) {
                FileNow now = seen.files().get(f.path());
                writes.add(f);
                before.put(f.path(), now == null ? Optional.empty() : Optional.of(now.content()));
            }
        }
        if (!writes.isEmpty()) {
            a.add(new WriteFiles(writes, before));
        }
        if (owed.values().stream()
                .anyMatch(o -> o.change().action() == SettingsPreview.Action.RESTART
                        && o.invocation().isEmpty())) {
            a.add(new NoteInvocations());
        }
        if (!writes.isEmpty()) {
            a.add(new FilesWritten());
        }
        Map<String, Optional<String>> dropIns = new LinkedHashMap<>();
        for (String unit : wanted.daemons()) {
            FileNow now = seen.dropIns().get(unit);
            if (now == null || !now.content().equals(RESTART_DROP_IN)) {
                dropIns.put(unit, Optional.ofNullable(now).map(FileNow::content));
            }
        }
        if (!dropIns.isEmpty()) {
            a.add(new RestartDropIns(dropIns));
        }
        for (String unit : wanted.daemons()) {
            if (!seen.enabled().contains(unit)) {
                a.add(new Enable(unit));
            }
            DaemonChange effect = effects.get(unit);
            Owed restart = owed.get(unit + " " + SettingsPreview.Action.RESTART);
            if (effect != null && effect.action() == SettingsPreview.Action.START) {
                a.add(new Start(effect));
            } else if (restart != null) {
                a.add(new Restart(restart.change()));
            } else if (effect != null && effect.action() == SettingsPreview.Action.RECONFIGURE) {
                a.add(new Reconfigured(effect));
            }
        }
        Owed reconfigure = owed.get("slurmctld " + SettingsPreview.Action.RECONFIGURE);
        if (wanted.controls() && reconfigure != null) {
            // Shown as slurmctld's own line unless slurmctld's Reconfigured already shows it (after its restart on
            // 22.05 for a changed node set, or owed from a pass that failed, it is a daemon action of its own).
            a.add(new Reconfigure(
                    reconfigure.change(),
                    a.stream()
                            .noneMatch(x -> x instanceof Reconfigured r
                                    && r.change().unit().equals("slurmctld"))));
        }
        held.addAll(kept);
        Diff diff = Diff.of(a, "Slurm's files match and its daemons run");
        return held.isEmpty() ? diff : diff.waitingFor(held);
    }

    sealed interface SlurmAction extends Action
            permits Retire,
                    RecordOwed,
                    WriteFiles,
                    NoteInvocations,
                    FilesWritten,
                    RestartDropIns,
                    Enable,
                    Start,
                    Restart,
                    Reconfigured,
                    Reconfigure {}

    /**
     * Each unit's {@link #restartDropIn} written, then one {@code systemctl daemon-reload}: no daemon is restarted for it.
     *
     * @param before each unit's drop-in as it is (empty: none)
     */
    record RestartDropIns(Map<String, Optional<String>> before) implements SlurmAction {
        List<String> units() {
            return List.copyOf(before.keySet());
        }

        @Override
        public List<SettingsPreview.FileChange> files(FileDiffs diffs) {
            return before.entrySet().stream()
                    .map(e -> new SettingsPreview.FileChange(
                            restartDropIn(e.getKey()),
                            e.getValue().isEmpty() ? SettingsPreview.Change.CREATED : SettingsPreview.Change.CHANGED,
                            diffs.of(restartDropIn(e.getKey()), e.getValue().orElse(null), RESTART_DROP_IN)))
                    .toList();
        }

        public String will() {
            return "have systemd start %s again should %s crash (%s, then systemctl daemon-reload)"
                    .formatted(
                            String.join(" and ", units()),
                            units().size() == 1 ? "it" : "one",
                            String.join(
                                    ", ",
                                    units().stream()
                                            .map(SlurmDiff::restartDropIn)
                                            .toList()));
        }

        public String did() {
            return "systemd starts %s again should %s crash (Restart=on-failure)"
                    .formatted(String.join(" and ", units()), units().size() == 1 ? "it" : "one");
        }

        @Override
        public String failed(String error) {
            return "cannot have systemd start %s again after a crash: %s"
                    .formatted(String.join(" and ", units()), error);
        }
    }

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

    /** What the daemons are owed, written down before the files: an agent stopped after them still owes it. */
    record RecordOwed(List<Owed> owed) implements SlurmAction {
        public String will() {
            return "write down the restarts owed";
        }

        public String did() {
            return "";
        }

        @Override
        public String failed(String error) {
            return "cannot write down what the daemons are owed: " + error;
        }
    }

    /**
     * Slurm's files that differ, written whole in the plan's order.
     *
     * @param before what each holds now, by path; empty where it does not exist
     */
    record WriteFiles(List<ManagedFile> files, Map<String, Optional<String>> before) implements SlurmAction {
        public String will() {
            return "write "
                    + String.join(", ", files.stream().map(ManagedFile::path).toList());
        }

        public String did() {
            return "wrote "
                    + String.join(
                            ", ",
                            new TreeSet<>(files.stream().map(f -> f.path()).toList())
                                    .stream()
                                            .map(p -> Path.of(p).getFileName().toString())
                                            .toList());
        }

        @Override
        public List<SettingsPreview.FileChange> files(FileDiffs diffs) {
            return files.stream()
                    .map(f -> new SettingsPreview.FileChange(
                            f.path(),
                            before.get(f.path()).isEmpty()
                                    ? SettingsPreview.Change.CREATED
                                    : SettingsPreview.Change.CHANGED,
                            f.secret()
                                    ? null
                                    : diffs.of(f.path(), before.get(f.path()).orElse(null), f.content())))
                    .toList();
        }

        @Override
        public String failed(String error) {
            return "cannot write Slurm's files: " + error;
        }

        @Override
        public String toString() {
            return "WriteFiles" + files;
        }
    }

    /** Each owed restart notes the invocation that read the old files: the restart is done when the unit has another. */
    record NoteInvocations() implements SlurmAction {
        public String will() {
            return "note the daemons' invocations";
        }

        public String did() {
            return "";
        }
    }

    /** The files are written (where a test's failpoint holds the agent, to be killed). */
    record FilesWritten() implements SlurmAction {
        public String will() {
            return "";
        }

        public String did() {
            return "";
        }
    }

    record Enable(String unit) implements SlurmAction {
        public String will() {
            return "enable " + unit;
        }

        public String did() {
            return "enabled " + unit;
        }

        @Override
        public boolean housekeeping() {
            return true;
        }
    }

    record Start(DaemonChange change) implements SlurmAction {
        public String will() {
            return "start " + change.unit();
        }

        public String did() {
            return "started " + change.unit();
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(change);
        }
    }

    record Restart(DaemonChange change) implements SlurmAction {
        public String will() {
            return "restart " + change.unit();
        }

        public String did() {
            return "restarted " + change.unit() + " (a change it reads only at start)";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(change);
        }
    }

    /** A daemon that takes the new files from the controller's reconfigure: nothing to do here; a preview shows it. */
    record Reconfigured(DaemonChange change) implements SlurmAction {
        public String will() {
            return change.why();
        }

        public String did() {
            return "";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(change);
        }
    }

    /**
     * The controller's {@code scontrol reconfigure}, after every restart; a preview shows it as
     * slurmctld's {@link Reconfigured}, or, where there is none ({@code shown}), as a line of its own.
     */
    record Reconfigure(DaemonChange change, boolean shown) implements SlurmAction {
        public String will() {
            return "scontrol reconfigure";
        }

        public String did() {
            return "scontrol reconfigure";
        }

        @Override
        public boolean housekeeping() {
            return !shown;
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return shown ? Optional.of(change) : Optional.empty();
        }
    }

    /**
     * What Slurm's daemons on one machine are to do once its files are written: the one decision
     * that {@link #diff} turns into actions and a settings preview shows, so the two cannot disagree. A
     * daemon that does not run is started; one that runs is restarted where Slurm needs it (a
     * slurm.conf key it reads only at start; gres.conf or cgroup.conf for slurmd), else it takes
     * the change from the {@code scontrol reconfigure} the controller's agent issues. Nothing is
     * ever stopped.
     *
     * @param written  each file about to be written, by path, with what it holds now ("" when absent)
     * @param files    the plan's files, as they will be: empty leaves Slurm alone, as {@link #diff} does
     * @param services the plan's units, in the order the agent acts on them
     * @param running  the units of slurmctld and slurmd that run now
     * @return an action for each daemon that gets one, in the order of {@code services}
     */
    public static List<DaemonChange> effects(
            Map<String, String> written, Map<String, String> files, List<String> services, Set<String> running) {
        if (files.isEmpty()) {
            return List.of();
        }
        List<String> restartKeys = written.containsKey(SLURM_CONF)
                ? restartKeys(written.get(SLURM_CONF), files.getOrDefault(SLURM_CONF, ""))
                : List.of();
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
        String old = written.get(SLURM_CONF);
        String next = files.get(SLURM_CONF);
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
    private static DaemonChange covering(DaemonChange a, DaemonChange b) {
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
