package io.slurmlet.agent.slurm;

import io.slurmlet.agent.containers.ContainersDiff;
import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Failpoints;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.slurm.SlurmDiff.Owed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.ManagedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Slurm's files as the plan has them, and slurmctld / slurmd enabled and running. A change Slurm
 * takes with {@code scontrol reconfigure} is applied so, issued once by the controller's agent; a
 * daemon is restarted only where Slurm needs it (keys it reads only at start, gres.conf and
 * cgroup.conf for slurmd; on 22.05 slurmctld for NodeName lines added or removed, which would end
 * it on a reconfigure: {@link ReconfigureTable}). The only daemons stopped are those the plan
 * retires (a role the machine no longer has, in a cluster that runs), and only where they run from
 * slurmlet's own files and no job needs them: an old slurmctld with an empty queue, an old slurmd
 * with no job on this machine. No job is touched.
 *
 * <p>What a pass decides to do to the daemons is written down (the state directory's
 * {@code slurm/owed}) before the files are: an agent killed between the files and the restart
 * finds, when it comes back, the restart it owes, though the files then match. Once the files are
 * written, each owed restart notes the daemon's systemd invocation; the restart is done when the
 * unit has another ({@link Services#invocation}: whoever restarted it, it read the new files). An
 * owed restart without one is done again. A reconfigure is done once {@code scontrol reconfigure}
 * succeeded. Nothing of this is kept in memory.
 */
public final class SlurmStep extends Reconciler<SlurmDiff.Wanted, SlurmDiff.Seen> {

    static final Duration RECONFIGURE_DEADLINE = Duration.ofSeconds(60);
    /** Slurm's files a plan writes, looked at where the plan has none. */
    static final List<String> LEFT_FILES = List.of(
            "/etc/slurm/slurm.conf", "/etc/slurm/cgroup.conf", "/etc/slurm/gres.conf", "/etc/slurm/plugstack.conf");

    /**
     * How long after slurmctld started a job it may still be launching it: Slurm's default
     * BatchStartTimeout. A restart in that window can lose the launch (the batch launch slurmctld
     * had queued, or slurmd's answer), and slurmctld then ends the job as "missing from batch node".
     */
    static final long LAUNCH_SECONDS = 10;
    /** The most a restart waits for launches; after that it is left owed for the next pass. */
    static final int LAUNCH_LOOKS = 20;
    /** The longest one look at the launching jobs may take (slurmctld answers in milliseconds; one that does not is not launching). */
    static final Duration LAUNCH_LOOK_DEADLINE = Duration.ofSeconds(5);

    /** Every job slurmctld has, in any state but ended, by id. */
    static final List<String> EVERY_JOB = List.of("squeue", "-h", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i");

    private final Files files;
    private final Services services;
    private final Commands commands;
    private final Path root;
    /** The restarts and the controller's reconfigure decided and not yet done: {@link Owed}. */
    private final Path owedFile;

    /**
     * @param stateDir where the daemons' owed restarts are written down (root-only)
     */
    public SlurmStep(Files files, Services services, Commands commands, Path root, Path stateDir, HostFiles host) {
        this(files, services, commands, root, stateDir, host, Thread::sleep);
    }

    /** How this step waits a second between two looks at jobs that are launching: a real sleep, or none in tests. */
    interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    private final Pause pause;
    /** The machine's processes: the jobs that run here, which an old slurmd is kept for. */
    private final HostFiles host;

    SlurmStep(
            Files files, Services services, Commands commands, Path root, Path stateDir, HostFiles host, Pause pause) {
        super("slurm", SlurmDiff::desired, SlurmDiff::diff);
        this.files = files;
        this.services = services;
        this.commands = commands;
        this.root = root;
        this.owedFile = stateDir.resolve("slurm").resolve("owed");
        this.pause = pause;
        this.host = host;
    }

    /** What the last pass compared the machine with: which of the files hold a secret, for the report. */
    private volatile SlurmDiff.Wanted looked = new SlurmDiff.Wanted(false, List.of(), List.of(), false);

    private volatile boolean pluginsMissing;

    /** What the machine's report says of Slurm's files and daemons, from the last pass; empty before it. */
    public Optional<SlurmSeen> reported() {
        SlurmDiff.Wanted wanted = looked;
        return seen().map(s -> SlurmDiff.report(s, wanted));
    }

    /** The plan's files as they are, its daemons running and enabled, and what is still owed them. */
    @Override
    public SlurmDiff.Seen observe(SlurmDiff.Wanted wanted) throws IOException, SystemException {
        looked = wanted;
        pluginsMissing = false;
        if (wanted.files().isEmpty()) {
            // No role (yet, or any more): what is left of Slurm here is looked at, for the report (a dry run that
            // gives the machine a role then knows the slurmd that still runs, and the files it keeps), and what the
            // plan retires stops once no job needs it.
            Daemons left = daemons(new TreeSet<>(SlurmDiff.DAEMONS));
            Map<String, SlurmDiff.FileNow> kept = filesNow(LEFT_FILES);
            return new SlurmDiff.Seen(
                    kept, left.running(), left.enabled(), Map.of(), false, Map.of(), leftovers(wanted, kept, left));
        }
        Map<String, Owed> before;
        try {
            before = readOwed();
        } catch (IOException e) {
            throw new IOException(
                    "cannot read what the daemons are owed (%s): %s".formatted(owedFile, e.getMessage()), e);
        }
        Map<String, SlurmDiff.FileNow> now =
                filesNow(wanted.files().stream().map(ManagedFile::path).toList());
        List<String> units = new ArrayList<>(wanted.daemons());
        wanted.retired().stream().filter(u -> !units.contains(u)).forEach(units::add);
        Daemons daemons = daemons(units);
        Set<String> running = daemons.running();
        Set<String> enabled = daemons.enabled();
        Map<String, Owed> still = stillOwed(before, wanted);
        Set<String> missing = missingPlugins(wanted);
        pluginsMissing = !missing.isEmpty();
        return new SlurmDiff.Seen(
                now,
                running,
                enabled,
                still,
                !Arrays.equals(owedText(still), owedBytes()),
                partitionJobs(SlurmDiff.droppedPartitions(wanted, now), SlurmDiff.submitsToAll(now)),
                leftovers(wanted, now, daemons),
                missing,
                dropIns(wanted));
    }

    /** Each of the plan's daemons' restart drop-in, as it is, where it exists. */
    private Map<String, SlurmDiff.FileNow> dropIns(SlurmDiff.Wanted wanted) throws IOException {
        Map<String, SlurmDiff.FileNow> now =
                filesNow(wanted.daemons().stream().map(SlurmDiff::restartDropIn).toList());
        Map<String, SlurmDiff.FileNow> dropIns = new LinkedHashMap<>();
        for (String unit : wanted.daemons()) {
            SlurmDiff.FileNow f = now.get(SlurmDiff.restartDropIn(unit));
            if (f != null) {
                dropIns.put(unit, f);
            }
        }
        return dropIns;
    }

    /**
     * Each daemon the plan retires that runs or is enabled here from slurmlet's slurm.conf, with what
     * still needs it: for slurmctld, the jobs its queue holds, asked of it through the slurm.conf
     * that names this machine the controller (one that names another cannot ask it: kept, said so);
     * for slurmd, the jobs that run on this machine. A site's own daemons (a slurm.conf slurmlet did
     * not write) are left alone, and not listed.
     */
    private Map<String, List<String>> leftovers(
            SlurmDiff.Wanted wanted, Map<String, SlurmDiff.FileNow> now, Daemons daemons) {
        SlurmDiff.FileNow conf = now.get(SlurmDiff.SLURM_CONF);
        Map<String, List<String>> leftovers = new LinkedHashMap<>();
        if (conf == null || !SlurmDiff.ours(conf.content())) {
            return leftovers;
        }
        for (String unit : wanted.retired()) {
            if (!daemons.running().contains(unit) && !daemons.enabled().contains(unit)) {
                continue;
            }
            leftovers.put(
                    unit, !daemons.running().contains(unit) ? List.of() : needing(unit, wanted.node(), conf.content()));
        }
        return leftovers;
    }

    /** The jobs that still need {@code unit}, a daemon about to be retired; none: it can go. */
    private List<String> needing(String unit, String node, String slurmConf) {
        if (unit.equals("slurmd")) {
            return LocalJobs.running(host).stream()
                    .map(id -> "job " + id + " runs here")
                    .toList();
        }
        Optional<String> controller = SlurmDiff.controllerOf(slurmConf);
        if (controller.isEmpty() || !controller.get().equals(node)) {
            return List.of(
                    "its queue cannot be asked, as slurm.conf here names %s the controller: stop it by hand once it holds no job"
                            .formatted(controller.orElse("no host")));
        }
        return jobIds(EVERY_JOB).stream()
                .map(j -> j.startsWith("its jobs") ? j : "job " + j)
                .toList();
    }

    /**
     * Whether the last look held Slurm's files and daemons back for a plugin the plan's
     * plugstack.conf requires and this machine lacks: its daemons are then not this plan's yet, and
     * the daemon watch leaves them alone (a slurmd it started would fail on the plugin).
     */
    public boolean waitsForPlugins() {
        return pluginsMissing;
    }

    /** The plugins the wanted plugstack.conf requires that are not on this machine. */
    private Set<String> missingPlugins(SlurmDiff.Wanted wanted) throws IOException {
        Set<String> missing = new TreeSet<>();
        for (ManagedFile f : wanted.files()) {
            if (f.path().equals(SlurmDiff.PLUGSTACK)) {
                for (String plugin : SlurmDiff.requiredPlugins(f.content())) {
                    Optional<Files.Stat> st = files.stat(ManagedFiles.under(root, plugin));
                    if (st.isEmpty()) {
                        missing.add(plugin);
                    } else if (plugin.equals(ContainerFacts.PYXIS_PLUGIN)) {
                        unloadablePyxis(st.get().content()).ifPresent(why -> missing.add(plugin + " " + why));
                    }
                }
            }
        }
        return missing;
    }

    /**
     * Why the pyxis here would not load into this machine's Slurm, in words; empty where it would. A
     * plugin of another Slurm release is refused by Slurm (a machine whose Slurm was upgraded in
     * place keeps the pyxis built for the one before until the containers step builds it again), and
     * one that is not what slurmlet built and recorded is of no known release.
     */
    private Optional<String> unloadablePyxis(byte[] plugin) throws IOException {
        Optional<ContainersDiff.Stamp> stamp = files.stat(ManagedFiles.under(root, ContainersDiff.PYXIS_STAMP))
                .flatMap(f -> ContainersDiff.Stamp.parse(f.content()));
        if (stamp.isEmpty() || !stamp.get().sha256().equals(ManagedFiles.sha256(plugin))) {
            return Optional.of("(not the one slurmlet built and recorded in " + ContainersDiff.PYXIS_STAMP + ")");
        }
        Optional<SlurmVersion> installed = installedSlurm();
        if (installed.isPresent()
                && !SlurmVersion.parse(stamp.get().slurm())
                        .map(SlurmVersion::release)
                        .equals(Optional.of(installed.get().release()))) {
            return Optional.of("(built for Slurm %s; this machine's is %s)"
                    .formatted(stamp.get().slurm(), installed.get()));
        }
        return Optional.empty();
    }

    /** How long the look at the installed Slurm's version may take, each program asked. */
    static final Duration VERSION_LOOK = Duration.ofSeconds(10);

    /**
     * The installed Slurm's version, as its daemons say it (slurmd, the one that loads the plugin,
     * then slurmctld, then srun, which reads slurm.conf and plugstack.conf even for -V); empty where
     * none answers, which leaves the plugin's release unjudged rather than failing the pass.
     */
    private Optional<SlurmVersion> installedSlurm() {
        for (List<String> argv : List.of(List.of("slurmd", "-V"), List.of("slurmctld", "-V"), List.of("srun", "-V"))) {
            try {
                Commands.Result r = commands.run(argv, VERSION_LOOK);
                Optional<SlurmVersion> version = r.succeeded() ? SlurmVersion.parse(r.stdout()) : Optional.empty();
                if (version.isPresent()) {
                    return version;
                }
            } catch (SystemException e) {
                // not installed, or it did not answer: the next one, else unknown
            }
        }
        return Optional.empty();
    }

    /** Each of {@code paths} that exists, as it is. */
    private Map<String, SlurmDiff.FileNow> filesNow(List<String> paths) throws IOException {
        Map<String, SlurmDiff.FileNow> now = new LinkedHashMap<>();
        try {
            for (String path : paths) {
                Optional<Files.Stat> st = files.stat(ManagedFiles.under(root, path));
                if (st.isPresent()) {
                    now.put(
                            path,
                            new SlurmDiff.FileNow(
                                    new String(st.get().content(), StandardCharsets.UTF_8),
                                    st.get().mode(),
                                    st.get().owner(),
                                    st.get().group()));
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot read Slurm's files: " + e.getMessage(), e);
        }
        return now;
    }

    /** Which of {@code units} run, and which are enabled. */
    private record Daemons(Set<String> running, Set<String> enabled) {}

    private Daemons daemons(Collection<String> units) throws SystemException {
        Set<String> running = new HashSet<>();
        Set<String> enabled = new HashSet<>();
        for (String unit : units) {
            if (services.isActive(unit)) {
                running.add(unit);
            }
            if (services.isEnabled(unit)) {
                enabled.add(unit);
            }
        }
        return new Daemons(running, enabled);
    }

    /**
     * Waits, a second at a time and {@link #LAUNCH_LOOKS} looks at most, until the jobs that were
     * being launched at the first look are launched: slurmctld's restart waits for the cluster's,
     * slurmd's for this node's. Only the first look's jobs are waited for, so a busy cluster, where
     * some job always starts, still gets its restart within seconds. A slurmctld that cannot be
     * asked launches nothing.
     *
     * @throws Held jobs were still launching at the last look: the restart stays owed
     */
    private void awaitLaunches(String unit, String node) throws Held {
        List<String> argv = new ArrayList<>(List.of("squeue", "-a", "-h", "-t", "CF,R", "-o", "%i %T %M"));
        if (!unit.equals("slurmctld")) {
            if (node.isEmpty()) {
                return;
            }
            argv.addAll(List.of("-w", node));
        }
        Set<String> first = null;
        List<String> launching = List.of();
        for (int look = 0; look < LAUNCH_LOOKS; look++) {
            Map<String, String> now;
            try {
                now = launching(commands.runChecked(argv, LAUNCH_LOOK_DEADLINE).stdout());
            } catch (SystemException e) {
                return;
            }
            if (first == null) {
                first = Set.copyOf(now.keySet());
            }
            now.keySet().retainAll(first);
            launching = List.copyOf(now.values());
            if (launching.isEmpty()) {
                return;
            }
            try {
                pause.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new Held(("%s is restarted once no job is launching%s (%s): a restart as a job launches can lose it; "
                        + "it stays owed for the next pass")
                .formatted(unit, unit.equals("slurmctld") ? "" : " on " + node, String.join(", ", launching)));
    }

    /**
     * The jobs of {@code squeue -o "%i %T %M"} that are still launching, by id: configuring, or
     * running for less than {@link #LAUNCH_SECONDS}; each said as {@code job 12 (running 3 s)}.
     * A time squeue cannot print ({@code INVALID}: over a year, or a start in this clock's future)
     * is not a launch.
     */
    static Map<String, String> launching(String squeue) {
        Map<String, String> launching = new LinkedHashMap<>();
        for (String line :
                squeue.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            String[] f = line.split("\\s+");
            if (f.length < 3) {
                continue;
            }
            if (f[1].equals("CONFIGURING")) {
                launching.put(f[0], "job " + f[0] + " (configuring)");
                continue;
            }
            OptionalLong ran = elapsedSeconds(f[2]);
            if (ran.isPresent() && ran.getAsLong() < LAUNCH_SECONDS) {
                launching.put(f[0], "job %s (running %d s)".formatted(f[0], ran.getAsLong()));
            }
        }
        return launching;
    }

    /** squeue's {@code %M}: {@code 0:05}, {@code 1:02:03}, {@code 2-01:02:03}; empty for one it cannot read. */
    static OptionalLong elapsedSeconds(String time) {
        Matcher m = ELAPSED.matcher(time);
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        long days = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
        long hours = m.group(2) == null ? 0 : Long.parseLong(m.group(2));
        return OptionalLong.of(
                ((days * 24 + hours) * 60 + Long.parseLong(m.group(3))) * 60 + Long.parseLong(m.group(4)));
    }

    private static final Pattern ELAPSED = Pattern.compile("^(?:(\\d{1,6})-)?(?:(\\d{1,6}):)?(\\d{1,6}):(\\d{1,2})$");

    /**
     * The jobs slurmctld has, in any state but ended, in each of {@code partitions}; one it cannot be
     * asked has the error instead. With {@code everyJob} (slurm.conf loads job_submit/all_partitions)
     * every job: each one submitted without a partition names them all, and squeue shows a running
     * job in the one partition it runs in only, while Slurm fails it when any other it named goes.
     */
    private Map<String, List<String>> partitionJobs(List<String> partitions, boolean everyJob) {
        Map<String, List<String>> jobs = new LinkedHashMap<>();
        // With every job asked for, one squeue answers for every partition that goes.
        Map<List<String>, List<String>> asked = new HashMap<>();
        for (String partition : partitions) {
            List<String> argv = everyJob
                    ? EVERY_JOB
                    : List.of("squeue", "-h", "-p", partition, "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i");
            List<String> found = asked.computeIfAbsent(argv, this::jobIds);
            if (!found.isEmpty()) {
                jobs.put(partition, found);
            }
        }
        return jobs;
    }

    /** The job ids {@code squeue} prints, the first five named; the error instead where slurmctld cannot be asked. */
    private List<String> jobIds(List<String> squeue) {
        try {
            List<String> ids = commands.runChecked(squeue, RECONFIGURE_DEADLINE)
                    .stdout()
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty())
                    .toList();
            return ids.size() > 5 ? List.of(String.join(", ", ids.subList(0, 5)) + ", …") : ids;
        } catch (SystemException e) {
            // Not knowing is not "none": the file waits until slurmctld can say.
            return List.of("its jobs cannot be asked for: " + e.getMessage());
        }
    }

    @Override
    protected void act(SlurmDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (action instanceof SlurmDiff.Retire r) {
            String unit = r.change().unit();
            if (services.isActive(unit)) {
                // Asked again right before the stop: a job sent to the old slurmctld, or started here, since the look
                // keeps it.
                List<String> needed = needing(
                        unit,
                        wanted.node(),
                        filesNow(List.of(SlurmDiff.SLURM_CONF))
                                .getOrDefault(SlurmDiff.SLURM_CONF, new SlurmDiff.FileNow("", "", "", ""))
                                .content());
                if (!needed.isEmpty()) {
                    throw new Held(
                            "%s stops here once no job needs it (%s)".formatted(unit, String.join(", ", needed)));
                }
                services.stop(unit);
            }
            if (services.isEnabled(unit)) {
                services.disable(unit);
            }
        } else if (action instanceof SlurmDiff.RecordOwed r) {
            Map<String, Owed> owed = new LinkedHashMap<>();
            r.owed().forEach(o -> owed.put(o.key(), o));
            writeOwed(owed);
        } else if (action instanceof SlurmDiff.WriteFiles w) {
            for (ManagedFile f : w.files()) {
                ManagedFiles.write(files, ManagedFiles.under(root, f.path()), f);
            }
        } else if (action instanceof SlurmDiff.NoteInvocations) {
            Map<String, Owed> noted = new LinkedHashMap<>();
            for (var e : readOwed().entrySet()) {
                Owed o = e.getValue();
                noted.put(
                        e.getKey(),
                        o.change().action() == SettingsPreview.Action.RESTART
                                        && o.invocation().isEmpty()
                                ? new Owed(
                                        o.change(),
                                        services.invocation(o.change().unit()))
                                : o);
            }
            writeOwed(noted);
        } else if (action instanceof SlurmDiff.FilesWritten) {
            Failpoints.hold(Failpoints.FILES_WRITTEN);
        } else if (action instanceof SlurmDiff.RestartDropIns d) {
            for (String unit : d.units()) {
                ManagedFile f = SlurmDiff.restartDropInFile(unit);
                ManagedFiles.write(files, ManagedFiles.under(root, f.path()), f);
            }
            services.reload();
        } else if (action instanceof SlurmDiff.Enable e) {
            services.enable(e.unit());
        } else if (action instanceof SlurmDiff.Start s) {
            services.start(s.change().unit());
            done(s.change().unit() + " " + SettingsPreview.Action.RESTART);
        } else if (action instanceof SlurmDiff.Restart r) {
            awaitLaunches(r.change().unit(), wanted.node());
            services.restart(r.change().unit());
            done(r.change().unit() + " " + SettingsPreview.Action.RESTART);
        } else if (action instanceof SlurmDiff.Reconfigured r) {
            // The controller's reconfigure has every slurmd read its files, but it may come before this machine's
            // agent wrote them (each agent writes on its own): slurmd reads them again here, as on that reconfigure.
            // Not on the controller's own machine: its reconfigure follows in this pass, after the files.
            if (r.change().unit().equals("slurmd") && !wanted.controls()) {
                services.reread("slurmd");
            }
        } else if (action instanceof SlurmDiff.Reconfigure) {
            commands.runChecked(List.of("scontrol", "reconfigure"), RECONFIGURE_DEADLINE);
            done("slurmctld " + SettingsPreview.Action.RECONFIGURE);
        } else {
            throw new IllegalArgumentException("not a slurm action: " + action);
        }
    }

    /** Crosses off what was just done; a failure to write it down means it may be done once more, never skipped. */
    private void done(String key) throws IOException {
        Map<String, Owed> owed = readOwed();
        if (owed.remove(key) != null) {
            try {
                writeOwed(owed);
            } catch (IOException e) {
                throw new IOException(
                        "could not write down in %s what is done (%s): it may be done once more"
                                .formatted(owedFile, e.getMessage()),
                        e);
            }
        }
    }

    /** The owed file's content for {@code owed}; empty for none (no file). */
    private static byte[] owedText(Map<String, Owed> owed) {
        StringBuilder text = new StringBuilder();
        owed.values().forEach(o -> text.append(o.line()).append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The owed file's content now; empty when there is none. */
    private byte[] owedBytes() throws IOException {
        return files.stat(owedFile).map(Files.Stat::content).orElse(new byte[0]);
    }

    /** What the owed file says, by unit and action; a line that cannot be read is dropped (the files' diff decides again). */
    private Map<String, Owed> readOwed() throws IOException {
        Map<String, Owed> owed = new LinkedHashMap<>();
        Optional<Files.Stat> file = files.stat(owedFile);
        if (file.isPresent()) {
            new String(file.get().content(), StandardCharsets.UTF_8)
                    .lines()
                    .map(Owed::parse)
                    .flatMap(Optional::stream)
                    .forEach(o -> owed.put(o.key(), o));
        }
        return owed;
    }

    /**
     * Of what was owed, what still is: the plan's daemons only, and no restart of a daemon whose
     * unit has had another invocation since the new files were written (someone, or an earlier pass,
     * restarted it).
     */
    private Map<String, Owed> stillOwed(Map<String, Owed> owed, SlurmDiff.Wanted wanted) throws SystemException {
        Map<String, Owed> still = new LinkedHashMap<>();
        for (Owed o : owed.values()) {
            String unit = o.change().unit();
            if (!wanted.services().contains(unit) || !SlurmDiff.DAEMONS.contains(unit)) {
                continue;
            }
            if (o.change().action() == SettingsPreview.Action.RESTART
                    && !o.invocation().isEmpty()
                    && !o.invocation().equals(services.invocation(unit))) {
                continue;
            }
            still.put(o.key(), o);
        }
        return still;
    }

    /** Writes down {@code next} (atomically, root-only) unless the file says just that; none owed: no file. */
    private void writeOwed(Map<String, Owed> next) throws IOException {
        byte[] wanted = owedText(next);
        Optional<Files.Stat> now = files.stat(owedFile);
        if (next.isEmpty()) {
            if (now.isPresent()) {
                files.delete(owedFile);
            }
        } else if (now.isEmpty() || !Arrays.equals(now.get().content(), wanted)) {
            files.write(owedFile, wanted, "rw-------", "root", "root");
        }
    }
}
