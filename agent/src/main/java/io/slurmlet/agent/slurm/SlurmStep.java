package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Failpoints;
import io.slurmlet.agent.reconcile.HoldsDaemonsBack;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.slurm.DaemonActions.Enable;
import io.slurmlet.agent.slurm.DaemonActions.NoteInvocations;
import io.slurmlet.agent.slurm.DaemonActions.Reconfigure;
import io.slurmlet.agent.slurm.DaemonActions.Reconfigured;
import io.slurmlet.agent.slurm.DaemonActions.RecordOwed;
import io.slurmlet.agent.slurm.DaemonActions.Restart;
import io.slurmlet.agent.slurm.DaemonActions.Start;
import io.slurmlet.agent.slurm.FileWrites.FilesWritten;
import io.slurmlet.agent.slurm.FileWrites.WriteFiles;
import io.slurmlet.agent.slurm.RestartDropIn.RestartDropIns;
import io.slurmlet.agent.slurm.Retiring.Retire;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.ManagedFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

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
 * <p>What a pass decides to do to the daemons is written down before the files are, and crossed
 * off once done ({@link OwedJournal}); a restart waits for the jobs being launched ({@link
 * LaunchGate}). Nothing of this is kept in memory.
 */
public final class SlurmStep extends Reconciler<SlurmDiff.Wanted, SlurmDiff.Seen> implements Reports, HoldsDaemonsBack {

    static final Duration RECONFIGURE_DEADLINE = Duration.ofSeconds(60);
    /** Slurm's files a plan writes, looked at where the plan has none. */
    static final List<String> LEFT_FILES = List.of(
            "/etc/slurm/slurm.conf",
            "/etc/slurm/cgroup.conf",
            "/etc/slurm/gres.conf",
            "/etc/slurm/plugstack.conf",
            SlurmDiff.JWKS);

    private final Files files;
    private final Services services;
    private final Commands commands;
    private final Path root;
    private final MachineNow machine;
    private final OwedJournal owed;
    private final JwksJournal keys;
    private final LaunchGate launches;
    private final JobsWaitedFor jobs;
    private final RequiredPlugins plugins;

    /**
     * @param stateDir where the daemons' owed restarts are written down (root-only)
     */
    public SlurmStep(Files files, Services services, Commands commands, Path root, Path stateDir, HostFiles host) {
        this(files, services, commands, root, stateDir, host, Thread::sleep);
    }

    SlurmStep(
            Files files,
            Services services,
            Commands commands,
            Path root,
            Path stateDir,
            HostFiles host,
            LaunchGate.Pause pause) {
        super("slurm", SlurmDiff::desired, SlurmDiff::diff);
        this.files = files;
        this.services = services;
        this.commands = commands;
        this.root = root;
        this.machine = new MachineNow(files, services, root);
        this.owed = new OwedJournal(files, services, stateDir);
        this.keys = new JwksJournal(files, services, stateDir);
        this.launches = new LaunchGate(commands, pause);
        this.jobs = new JobsWaitedFor(commands, host);
        this.plugins = new RequiredPlugins(files, commands, root);
    }

    /** What the last pass compared the machine with: which of the files hold a secret, for the report. */
    private volatile SlurmDiff.Wanted looked = new SlurmDiff.Wanted(false, List.of(), List.of(), false);

    private volatile boolean pluginsMissing;

    /** What the machine's report says of Slurm's files and daemons, from the last pass; empty before it. */
    public Optional<SlurmSeen> reported() {
        SlurmDiff.Wanted wanted = looked;
        return seen().map(s -> SlurmReport.report(s, wanted));
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
            MachineNow.Daemons left = machine.daemons(new TreeSet<>(SlurmDiff.DAEMONS));
            Map<String, SlurmDiff.FileNow> kept = machine.files(LEFT_FILES);
            return new SlurmDiff.Seen(
                    kept,
                    left.running(),
                    left.enabled(),
                    Map.of(),
                    false,
                    Map.of(),
                    jobs.leftovers(wanted, kept, left));
        }
        Map<String, Owed> before = owed.look();
        Map<String, SlurmDiff.FileNow> now =
                machine.files(wanted.files().stream().map(ManagedFile::path).toList());
        List<String> units = new ArrayList<>(wanted.daemons());
        wanted.retired().stream().filter(u -> !units.contains(u)).forEach(units::add);
        MachineNow.Daemons daemons = machine.daemons(units);
        Set<String> running = daemons.running();
        Set<String> enabled = daemons.enabled();
        Map<String, Owed> still = owed.stillOwed(before, wanted);
        Set<String> missing = plugins.missing(wanted);
        pluginsMissing = !missing.isEmpty();
        // Asked only where the plan has keys: a machine on munge runs no query for them.
        Map<String, Long> loaded = wanted.keysGeneration() == 0
                ? Map.of()
                : keys.loaded(
                        wanted.daemons().stream().filter(running::contains).toList());
        return new SlurmDiff.Seen(
                now,
                running,
                enabled,
                still,
                owed.saysOtherThan(still),
                jobs.inPartitions(FileWrites.droppedPartitions(wanted, now), FileWrites.submitsToAll(now)),
                jobs.leftovers(wanted, now, daemons),
                missing,
                machine.dropIns(wanted),
                loaded);
    }

    /**
     * Whether the last look held Slurm's files and daemons back for a plugin the plan's
     * plugstack.conf requires and this machine lacks: its daemons are then not this plan's yet, and
     * the daemon watch leaves them alone (a slurmd it started would fail on the plugin).
     */
    public boolean waitsForPlugins() {
        return pluginsMissing;
    }

    @Override
    public boolean holdsDaemonsBack() {
        return waitsForPlugins();
    }

    @Override
    protected void act(SlurmDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (action instanceof Retire r) {
            String unit = r.change().unit();
            if (services.isActive(unit)) {
                // Asked again right before the stop: a job sent to the old slurmctld, or started here, since the look
                // keeps it.
                List<String> needed = jobs.needing(
                        unit,
                        wanted.node(),
                        machine.files(List.of(SlurmDiff.SLURM_CONF))
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
        } else if (action instanceof RecordOwed r) {
            owed.record(r.owed());
        } else if (action instanceof WriteFiles w) {
            for (ManagedFile f : w.files()) {
                ManagedFiles.write(files, ManagedFiles.under(root, f.path()), f);
            }
            if (wanted.keysGeneration() > 0
                    && w.files().stream().anyMatch(f -> f.path().equals(SlurmDiff.JWKS))) {
                // After the write: a daemon that runs with another process than now read this generation.
                keys.written(wanted.keysGeneration(), wanted.daemons());
            }
        } else if (action instanceof NoteInvocations) {
            owed.noteInvocations();
        } else if (action instanceof FilesWritten) {
            Failpoints.hold(Failpoints.FILES_WRITTEN);
        } else if (action instanceof RestartDropIns d) {
            for (String unit : d.units()) {
                ManagedFile f = RestartDropIn.file(unit);
                ManagedFiles.write(files, ManagedFiles.under(root, f.path()), f);
            }
            services.reload();
        } else if (action instanceof Enable e) {
            services.enable(e.unit());
        } else if (action instanceof Start s) {
            services.start(s.change().unit());
            owed.done(s.change().unit() + " " + SettingsPreview.Action.RESTART);
        } else if (action instanceof Restart r) {
            launches.await(r.change().unit(), wanted.node());
            services.restart(r.change().unit());
            owed.done(r.change().unit() + " " + SettingsPreview.Action.RESTART);
        } else if (action instanceof Reconfigured r) {
            // The controller's reconfigure has every slurmd read its files, but it may come before this machine's
            // agent wrote them (each agent writes on its own): slurmd reads them again here, as on that reconfigure.
            // Not on the controller's own machine: its reconfigure follows in this pass, after the files.
            if (r.change().unit().equals("slurmd") && !wanted.controls()) {
                services.reread("slurmd");
            }
        } else if (action instanceof Reconfigure) {
            commands.runChecked(List.of("scontrol", "reconfigure"), RECONFIGURE_DEADLINE);
            owed.done("slurmctld " + SettingsPreview.Action.RECONFIGURE);
        } else {
            throw new IllegalArgumentException("not a slurm action: " + action);
        }
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withSlurm(reported().orElse(null));
    }
}
