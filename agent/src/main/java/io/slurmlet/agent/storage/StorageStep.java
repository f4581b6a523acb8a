package io.slurmlet.agent.storage;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.slurm.LocalJobs;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.StorageSeen;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The Slurm cluster's shared storage on this machine, as the plan's {@link StoragePlan} says (the
 * planner's reading of the settings' {@code shared}):
 * <ul>
 *   <li>{@code nfs}: the site's export mounted at {@code path} by a systemd mount unit named from
 *       the path (systemd's escaping), ordered after the network;</li>
 *   <li>{@code server}: that node exports {@code path} to the cluster's machines only, root not
 *       squashed: with the kernel's NFS server where the kernel has one (an exports file of
 *       slurmlet's own), else with nfs-ganesha (containers); every other machine mounts
 *       {@code server:path} the same way;</li>
 *   <li>{@code path} alone: the site mounts it; the step only checks that something is mounted
 *       there, and fails, saying so, until it is.</li>
 * </ul>
 * A machine mounts its {@code server}'s export only once the server says it exports it ({@code
 * showmount -e}): until then, the mount waits (the old one, if any, stays), for up to {@link
 * #SERVER_GRACE}, as the server installs and starts its NFS server in its own pass; a server that
 * has not exported it by then fails the step. slurmd does not start before the storage is there
 * (a drop-in with RequiresMountsFor=). A change of settings stops and removes the mount units
 * slurmlet made that are no longer wanted, once no job runs here, and slurmd's wait for one is
 * lifted first ({@link StorageDiff}).
 */
public final class StorageStep extends Reconciler<StorageDiff.Wanted, StorageSeen> implements Reports {

    static final Path UNITS = Path.of("/etc/systemd/system");
    static final Path SLURMD_DROP_IN = Path.of("/etc/systemd/system/slurmd.service.d/slurmlet-storage.conf");
    static final String MARK = StorageTexts.MARK;
    static final String MODE = "rw-r--r--";

    static final Path GANESHA_CONF = Path.of("/etc/ganesha/ganesha.conf");
    static final Path EXPORTS = Path.of("/etc/exports.d/slurmlet.exports");
    static final String KERNEL_SERVER = StorageTexts.KERNEL_SERVER;
    static final String GANESHA = StorageTexts.GANESHA;

    private final Files files;
    private final HostFiles host;
    private final Services services;
    private final Commands commands;
    private final Path root;
    private final ServerExport serverExport;

    /** How long a mount waits for its server (a slurmlet machine) to export: its own pass may install the NFS server first. */
    static final Duration SERVER_GRACE = ServerExport.GRACE;

    public StorageStep(Files files, HostFiles host, Services services, Commands commands, Path root) {
        this(files, host, services, commands, root, Clock.systemUTC());
    }

    public StorageStep(Files files, HostFiles host, Services services, Commands commands, Path root, Clock clock) {
        super("storage", StorageDiff::desired, StorageDiff::diff);
        this.files = files;
        this.host = host;
        this.services = services;
        this.commands = commands;
        this.root = root;
        this.serverExport = new ServerExport(commands, clock);
    }

    /** slurmlet's mount units (and the wanted one), slurmd's drop-in, the exports and ganesha's configuration, the server's unit. */
    @Override
    public StorageSeen observe(StorageDiff.Wanted wanted) throws IOException, SystemException {
        StoragePlan p = wanted.storage();
        serverExport.forgetUnless(p);
        String wantedUnit = p instanceof StoragePlan.Mount ? StorageDiff.unitName(p.path()) : "";
        Map<String, StorageSeen.Unit> mounts = new TreeMap<>();
        for (Path unit : host.list(UNITS)) {
            String name = unit.getFileName().toString();
            if (!name.endsWith(".mount")) {
                continue;
            }
            Optional<Files.Stat> file = files.stat(at(UNITS.resolve(name)));
            boolean ours =
                    file.isPresent() && new String(file.get().content(), StandardCharsets.UTF_8).startsWith(MARK);
            if (ours || name.equals(wantedUnit)) {
                mounts.put(name, unitSeen(name, file));
            }
        }
        if (!wantedUnit.isEmpty() && !mounts.containsKey(wantedUnit)) {
            StorageSeen.Unit none = unitSeen(wantedUnit, Optional.empty());
            // Mounted with no unit file of slurmlet's: the site's (fstab, by hand); what it is, for the step's words.
            mounts.put(
                    wantedUnit,
                    none.active()
                            ? new StorageSeen.Unit(
                                    "",
                                    none.enabled(),
                                    true,
                                    Text.oneLine(mountedAt(p.path()).orElse("")),
                                    p.path())
                            : none);
        }
        Optional<Files.Stat> ganesha = files.stat(at(GANESHA_CONF));
        boolean kernel = kernelServer();
        StorageSeen.Unit server = null;
        if (p instanceof StoragePlan.Export) {
            String unit = kernel ? KERNEL_SERVER : GANESHA;
            server = new StorageSeen.Unit("", services.isEnabled(unit), services.isActive(unit));
        }
        return new StorageSeen(
                mounts,
                digest(files.stat(at(SLURMD_DROP_IN))),
                digest(files.stat(at(EXPORTS))),
                digest(ganesha),
                ganesha.isPresent()
                        && new String(ganesha.get().content(), StandardCharsets.UTF_8)
                                .startsWith(MARK.substring(0, 20)),
                kernel,
                ganeshaMajor(),
                server,
                p instanceof StoragePlan.Check
                        ? Text.oneLine(mountedAt(p.path()).orElse(""))
                        : "",
                exported(ganesha),
                LocalJobs.running(host));
    }

    private StorageSeen.Unit unitSeen(String name, Optional<Files.Stat> file) throws SystemException {
        String text =
                file.map(f -> new String(f.content(), StandardCharsets.UTF_8)).orElse("");
        return new StorageSeen.Unit(
                digest(file),
                services.isEnabled(name),
                services.isActive(name),
                line(text, "What="),
                line(text, "Where="));
    }

    /** The value of a unit file's {@code key} line, one line of printable text; "" when it has none. */
    private static String line(String text, String key) {
        return text.lines()
                .filter(l -> l.startsWith(key))
                .findFirst()
                .map(l -> Text.oneLine(l.substring(key.length())))
                .orElse("");
    }

    /** Whether two ganesha.conf texts differ at most in their {@code Clients = …;} lines: a reload takes that. */
    static boolean sameButClients(String before, String after) {
        Pattern clients = Pattern.compile("(?m)^(\\s*Clients = )[^;\n]*;$");
        return clients.matcher(before)
                .replaceAll("$1…;")
                .equals(clients.matcher(after).replaceAll("$1…;"));
    }

    /** The folder slurmlet's exports file (its second line's first word) or its ganesha.conf ({@code Path = …;}) exports; "" for none. */
    private String exported(Optional<Files.Stat> ganesha) throws IOException {
        Optional<Files.Stat> exports = files.stat(at(EXPORTS));
        if (exports.isPresent()) {
            List<String> lines = new String(exports.get().content(), StandardCharsets.UTF_8)
                    .lines()
                    .toList();
            return lines.size() > 1 ? Text.oneLine(lines.get(1).split(" ")[0]) : "";
        }
        String conf = ganesha.map(g -> new String(g.content(), StandardCharsets.UTF_8))
                .orElse("");
        var path = Pattern.compile("(?m)^\\s*Path = (\\S+);").matcher(conf);
        return conf.startsWith(MARK.substring(0, 20)) && path.find() ? Text.oneLine(path.group(1)) : "";
    }

    private static String digest(Optional<Files.Stat> file) {
        return file.map(f -> ManagedFiles.sha256(f.content())).orElse("");
    }

    @Override
    protected void act(StorageDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (action instanceof StorageActions.Mount m) {
            mount(m);
        } else if (action instanceof StorageActions.RemoveMount r) {
            unmount(r);
        } else if (action instanceof StorageActions.WriteDropIn d) {
            files.write(at(SLURMD_DROP_IN), bytes(d.text()), MODE, "root", "root");
            services.reload();
        } else if (action instanceof StorageActions.RemoveDropIn) {
            files.delete(at(SLURMD_DROP_IN));
            services.reload();
        } else if (action instanceof StorageActions.MakeExportDirs d) {
            commands.runChecked(
                    List.of("install", "-d", "-m", "0755", d.path(), d.path() + "/home"), Duration.ofSeconds(30));
        } else if (action instanceof StorageActions.Export x) {
            export(x);
        } else if (action instanceof StorageActions.Unexport u) {
            unexport(u);
        } else {
            throw new IllegalArgumentException("not a storage action: " + action);
        }
    }

    /** A client's mount: once the server lists the export, with slurmd's wait lifted around a remount. */
    private void mount(StorageActions.Mount m) throws IOException, SystemException {
        if (m.run() != StorageActions.Run.NONE && m.mount().ours()) {
            serverExport.await(m.mount());
        }
        if (m.run() == StorageActions.Run.RESTART) {
            // Before the unit file: written without the remount, the next pass would take it as done.
            noJobStartedMeanwhile(
                    "mounting " + m.mount().source() + " at " + m.mount().path() + " again");
        }
        if (m.lift()) {
            // Read by systemd before the remount: a restart of the mount would stop slurmd with it.
            files.delete(at(SLURMD_DROP_IN));
        }
        try {
            if (m.text() != null || m.lift()) {
                if (m.text() != null) {
                    files.write(at(UNITS.resolve(m.unit())), bytes(m.text()), MODE, "root", "root");
                }
                services.reload();
            }
            if (m.enable()) {
                services.enable(m.unit());
            }
            if (m.run() == StorageActions.Run.START) {
                services.start(m.unit());
            } else if (m.run() == StorageActions.Run.RESTART) {
                services.restart(m.unit());
            }
        } finally {
            if (m.lift()) {
                files.write(
                        at(SLURMD_DROP_IN), bytes(StorageTexts.dropIn(m.mount().path())), MODE, "root", "root");
                services.reload();
            }
        }
    }

    /** A mount that goes, once no job started here meanwhile. */
    private void unmount(StorageActions.RemoveMount r) throws IOException, SystemException {
        noJobStartedMeanwhile("unmounting " + (r.where().isEmpty() ? r.unit() : r.where()));
        services.stop(r.unit());
        files.delete(at(UNITS.resolve(r.unit())));
        services.reload();
    }

    /** The server's export: its file written, the server enabled, started, or told of its new clients. */
    private void export(StorageActions.Export x) throws IOException, SystemException {
        boolean clientsOnly = false;
        if (x.text() != null) {
            if (!x.kernel()) {
                clientsOnly = files.stat(at(GANESHA_CONF))
                        .map(f -> sameButClients(new String(f.content(), StandardCharsets.UTF_8), x.text()))
                        .orElse(false);
            }
            files.write(at(x.kernel() ? EXPORTS : GANESHA_CONF), bytes(x.text()), MODE, "root", "root");
            if (x.kernel() && x.run() != StorageActions.Run.START) {
                commands.runChecked(List.of("exportfs", "-ra"), Duration.ofSeconds(60));
            }
        }
        if (x.enable()) {
            services.enable(x.unit());
        }
        if (x.run() == StorageActions.Run.START) {
            services.start(x.unit());
        } else if (x.run() == StorageActions.Run.RESTART && !x.kernel() && clientsOnly) {
            // Only who may mount changed (a machine joined or left): nfs-ganesha rereads its exports on SIGHUP (its
            // unit's reload), with no pause for the clients. A restart stalled every job's /shared writes 0.4 s on
            // an
            // idle machine, over 1 s under load (ClusterIT's heartbeat, a machine rejoining). Not Services.reread:
            // that
            // waits out slurmd's re-execution, which ganesha does not do; reload-or-restart restarts it, as before,
            // only
            // where a site's unit has no ExecReload.
            commands.runChecked(List.of("systemctl", "reload-or-restart", x.unit()), Duration.ofSeconds(60));
        } else if (x.run() == StorageActions.Run.RESTART && !x.kernel()) {
            services.restart(x.unit());
        }
    }

    /** No longer the server: slurmlet's exports file removed, its ganesha stopped. */
    private void unexport(StorageActions.Unexport u) throws IOException, SystemException {
        if (u.exportsFile()) {
            files.delete(at(EXPORTS));
            commands.runChecked(List.of("exportfs", "-ra"), Duration.ofSeconds(60));
        }
        if (u.ganesha()) {
            services.stop(GANESHA);
            files.delete(at(GANESHA_CONF));
        }
    }

    /** A job that started since the pass looked (a mount before it may have taken a minute) holds the action back too. */
    private void noJobStartedMeanwhile(String what) throws IOException {
        List<String> jobs = LocalJobs.running(host);
        if (!jobs.isEmpty()) {
            throw new IOException("%s waits for job%s %s, which started here meanwhile"
                    .formatted(what, jobs.size() == 1 ? "" : "s", String.join(", ", jobs)));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether this kernel serves NFS itself (nfsd): then the kernel's server exports, else nfs-ganesha (containers). */
    private boolean kernelServer() {
        return host.read(Path.of("/proc/filesystems"))
                .map(f -> f.lines().anyMatch(l -> l.strip().endsWith("nfsd")))
                .orElse(false);
    }

    /**
     * The major version of the nfs-ganesha that dpkg has installed, or 0 when unknown (not a dpkg
     * machine, or not installed yet).
     */
    private int ganeshaMajor() {
        String status = host.read(Path.of("/var/lib/dpkg/status")).orElse("");
        for (String stanza : status.split("\n\n")) {
            if (stanza.startsWith("Package: nfs-ganesha\n")) {
                var v = GANESHA_VERSION.matcher(stanza);
                return v.find() ? Integer.parseInt(v.group(1)) : 0;
            }
        }
        return 0;
    }

    private static final Pattern GANESHA_VERSION = Pattern.compile("(?m)^Version: (?:\\d+:)?(\\d+)");

    /** What is mounted at {@code path}, from /proc/self/mountinfo; empty: nothing. */
    private Optional<String> mountedAt(String path) {
        Optional<String> info = host.read(Path.of("/proc/self/mountinfo"));
        if (info.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> found = Optional.empty();
        for (String line : info.get().split("\n")) {
            String[] f = line.split(" ");
            int dash = Arrays.asList(f).indexOf("-");
            if (f.length > 4
                    && dash > 0
                    && f.length > dash + 2
                    && f[4].replace("\\040", " ").equals(path)) {
                found = Optional.of(f[dash + 2] + ", " + f[dash + 1]);
            }
        }
        return found;
    }

    private Path at(Path absolute) {
        return ManagedFiles.under(root, absolute.toString());
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withStorage(seen().orElse(null));
    }
}
