package io.slurmlet.agent.storage;

import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.plan.Role;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

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
 * slurmd does not start before the storage is there (a drop-in with RequiresMountsFor=). A change
 * of settings stops and removes the mount units slurmlet made that are no longer wanted.
 */
public final class StorageStep implements Step {

    static final Path UNITS = Path.of("/etc/systemd/system");
    static final Path SLURMD_DROP_IN = Path.of("/etc/systemd/system/slurmd.service.d/slurmlet-storage.conf");
    static final String MARK = "# Written by slurmlet: the Slurm cluster's shared storage.";
    static final String MODE = "rw-r--r--";

    static final Path GANESHA_CONF = Path.of("/etc/ganesha/ganesha.conf");
    static final Path EXPORTS = Path.of("/etc/exports.d/slurmlet.exports");
    static final String KERNEL_SERVER = "nfs-server";
    static final String GANESHA = "nfs-ganesha";

    private final Files files;
    private final HostFiles host;
    private final Services services;
    private final Commands commands;
    private final Path root;

    public StorageStep(Files files, HostFiles host, Services services, Commands commands, Path root) {
        this.files = files;
        this.host = host;
        this.services = services;
        this.commands = commands;
        this.root = root;
    }

    @Override
    public String name() {
        return "storage";
    }

    @Override
    public Outcome apply(NodePlan plan) {
        List<String> done = new ArrayList<>();
        StoragePlan storage = plan.storage();
        String path = storage.path();
        try {
            String wantedUnit = "";
            if (storage instanceof StoragePlan.Mount mount) {
                wantedUnit = unitName(path);
                byte[] unit = unit(mount.source(), path, mount.ours() ? "_netdev,vers=3" : "_netdev").getBytes(StandardCharsets.UTF_8);
                Path file = at(UNITS.resolve(wantedUnit));
                Optional<Files.Stat> now = files.stat(file);
                boolean changed = now.isEmpty() || !Arrays.equals(now.get().content(), unit);
                if (changed) {
                    files.write(file, unit, MODE, "root", "root");
                    services.reload();
                    done.add("wrote " + wantedUnit);
                }
                if (!services.isEnabled(wantedUnit)) {
                    services.enable(wantedUnit);
                }
                String key = mount.ours() ? "shared.server" : "shared.nfs";
                try {
                    if (!services.isActive(wantedUnit)) {
                        services.start(wantedUnit);
                        done.add("mounted " + mount.source() + " at " + path);
                    } else if (changed) {
                        services.restart(wantedUnit);
                        done.add("mounted " + mount.source() + " at " + path + " again (the export changed)");
                    }
                } catch (SystemException e) {
                    return Outcome.failed(name(), ("%s: the export %s could not be mounted at %s (%s): check that it answers and "
                            + "exports %s to this machine; slurmd waits for it").formatted(key, mount.source(), path, e.getMessage(), path));
                }
            }
            for (String removed : removeUnwanted(wantedUnit)) {
                done.add("unmounted and removed " + removed);
            }
            keepSlurmdDropIn(plan.runs(Role.COMPUTE) ? path : "", done);
            if (storage instanceof StoragePlan.Export export) {
                return export(export, done);
            }
            unexport(done);
            if (storage instanceof StoragePlan.Check) {
                Optional<String> source = mountedAt(path);
                if (source.isEmpty()) {
                    return Outcome.failed(name(), ("nothing is mounted at %s (shared.path with neither nfs nor server means the site "
                            + "mounts it): mount the shared file system there; slurmd waits for it").formatted(path));
                }
                done.add(path + " is mounted (" + source.get() + ")");
                return done.size() == 1 ? Outcome.unchanged(name(), done.get(0)) : Outcome.changed(name(), String.join("; ", done));
            }
        } catch (IOException | SystemException e) {
            return Outcome.failed(name(), e.getMessage());
        }
        return done.isEmpty()
                ? Outcome.unchanged(name(), storage instanceof StoragePlan.None ? "no shared storage in the settings" : "the shared storage is mounted")
                : Outcome.changed(name(), String.join("; ", done));
    }

    /** A machine that no longer serves: ganesha stopped and its configuration removed, if slurmlet wrote it. */
    private void unexport(List<String> done) throws IOException, SystemException {
        if (files.stat(at(EXPORTS)).isPresent()) {
            files.delete(at(EXPORTS));
            commands.runChecked(List.of("exportfs", "-ra"), java.time.Duration.ofSeconds(60));
            done.add("removed " + EXPORTS + " (no longer shared.server)");
        }
        Optional<Files.Stat> conf = files.stat(at(GANESHA_CONF));
        if (conf.isPresent() && new String(conf.get().content(), StandardCharsets.UTF_8).startsWith(MARK.substring(0, 20))) {
            services.stop(GANESHA);
            files.delete(at(GANESHA_CONF));
            done.add("stopped exporting the shared storage (no longer shared.server)");
        }
    }

    /** The export on the server node: the folder, ganesha's configuration, ganesha running. */
    private Outcome export(StoragePlan.Export export, List<String> done) throws IOException, SystemException {
        String path = export.path();
        List<String> clients = export.clients();
        if (clients.isEmpty()) {
            return Outcome.unchanged(name(), "the export of " + path + " waits for the cluster's machines to be known (slurm.conf)");
        }
        commands.runChecked(List.of("install", "-d", "-m", "0755", path, path + "/home"), java.time.Duration.ofSeconds(30));
        if (kernelServer()) {
            return kernelExport(path, clients, done);
        }
        byte[] conf = ganeshaConf(path, clients, ganeshaMajor() >= 6).getBytes(StandardCharsets.UTF_8);
        Optional<Files.Stat> now = files.stat(at(GANESHA_CONF));
        boolean changed = now.isEmpty() || !Arrays.equals(now.get().content(), conf);
        if (changed) {
            files.write(at(GANESHA_CONF), conf, MODE, "root", "root");
            done.add("wrote " + GANESHA_CONF);
        }
        if (!services.isEnabled(GANESHA)) {
            services.enable(GANESHA);
        }
        if (!services.isActive(GANESHA)) {
            services.start(GANESHA);
            done.add("exported %s with nfs-ganesha to %s".formatted(path, String.join(", ", clients)));
        } else if (changed) {
            services.restart(GANESHA);
            done.add("exported %s again, now to %s".formatted(path, String.join(", ", clients)));
        }
        return done.isEmpty() ? Outcome.unchanged(name(), "%s is exported to %s".formatted(path, String.join(", ", clients)))
                : Outcome.changed(name(), String.join("; ", done));
    }

    /** Whether this kernel serves NFS itself (nfsd): then the kernel's server exports, else nfs-ganesha (containers). */
    private boolean kernelServer() {
        return host.read(Path.of("/proc/filesystems")).map(f -> f.lines().anyMatch(l -> l.strip().endsWith("nfsd"))).orElse(false);
    }

    /** The kernel's NFS server: an exports file of slurmlet's own, re-read by exportfs, nfs-server running. */
    private Outcome kernelExport(String path, List<String> clients, List<String> done) throws IOException, SystemException {
        byte[] exports = exportsLine(path, clients).getBytes(StandardCharsets.UTF_8);
        Optional<Files.Stat> now = files.stat(at(EXPORTS));
        if (now.isEmpty() || !Arrays.equals(now.get().content(), exports)) {
            files.write(at(EXPORTS), exports, MODE, "root", "root");
            if (services.isActive(KERNEL_SERVER)) {
                commands.runChecked(List.of("exportfs", "-ra"), java.time.Duration.ofSeconds(60));
            }
            done.add("wrote " + EXPORTS);
        }
        if (!services.isEnabled(KERNEL_SERVER)) {
            services.enable(KERNEL_SERVER);
        }
        if (!services.isActive(KERNEL_SERVER)) {
            services.start(KERNEL_SERVER);
            done.add("exported %s with the kernel's NFS server to %s".formatted(path, String.join(", ", clients)));
        }
        return done.isEmpty() ? Outcome.unchanged(name(), "%s is exported to %s".formatted(path, String.join(", ", clients)))
                : Outcome.changed(name(), String.join("; ", done));
    }

    static String exportsLine(String path, List<String> clients) {
        StringBuilder line = new StringBuilder(MARK + "\n" + path);
        for (String c : clients) {
            line.append(' ').append(c).append("(rw,sync,no_subtree_check,no_root_squash)");
        }
        return line.append('\n').toString();
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

    private static final java.util.regex.Pattern GANESHA_VERSION =
            java.util.regex.Pattern.compile("(?m)^Version: (?:\\d+:)?(\\d+)");

    /**
     * ganesha.conf exporting {@code path} to {@code clients}. nfs-ganesha 6 (trixie and newer) ends at
     * start when it cannot mark itself an I/O flusher (PR_SET_IO_FLUSHER needs CAP_SYS_RESOURCE,
     * which a container's root may lack): {@code allowFlusherFail} lets it go on with a warning
     * there; where the capability is held nothing changes. nfs-ganesha 4 (bookworm) neither sets the
     * flag nor knows the key, so it is written only for 6 and newer (system-tests/slurm/FINDINGS.md).
     */
    static String ganeshaConf(String path, List<String> clients, boolean allowFlusherFail) {
        return MARK.replace("storage.", "storage: nfs-ganesha exports shared.path to its machines only.") + "\n"
                + "NFS_CORE_PARAM {\n    Protocols = 3, 4;\n    Enable_NLM = false;\n    Enable_RQUOTA = false;\n"
                + (allowFlusherFail ? "    allow_set_io_flusher_fail = true;\n" : "") + "}\n"
                + "NFS_KRB5 {\n    Active_krb5 = false;\n}\n"
                + "NFSV4 {\n    Graceless = true;\n}\n"
                + "EXPORT {\n    Export_Id = 1;\n    Path = " + path + ";\n    Pseudo = " + path + ";\n    Protocols = 3, 4;\n"
                + "    Transports = TCP;\n    SecType = sys;\n    Squash = No_Root_Squash;\n    Access_Type = None;\n"
                + "    CLIENT {\n        Clients = " + String.join(", ", clients) + ";\n        Access_Type = RW;\n    }\n"
                + "    FSAL {\n        Name = VFS;\n    }\n}\n";
    }

    /** systemd's name for the mount unit of {@code path}, as {@code systemd-escape --path --suffix=mount} makes it. */
    public static String unitName(String path) {
        String p = path.replaceAll("/+", "/").replaceAll("^/|/$", "");
        if (p.isEmpty()) {
            return "-.mount";
        }
        StringBuilder out = new StringBuilder();
        byte[] bytes = p.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            char c = (char) (bytes[i] & 0xff);
            if (c == '/') {
                out.append('-');
            } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_'
                    || (c == '.' && i > 0)) {
                out.append(c);
            } else {
                out.append(String.format("\\x%02x", bytes[i] & 0xff));
            }
        }
        return out + ".mount";
    }

    static String unit(String what, String where, String options) {
        return MARK + "\n"
                + "[Unit]\n"
                + "Description=slurmlet shared storage at " + where + "\n"
                + "Wants=network-online.target\n"
                + "After=network-online.target\n\n"
                + "[Mount]\n"
                + "What=" + what + "\n"
                + "Where=" + where + "\n"
                + "Type=nfs\n"
                + "Options=" + options + "\n"
                + "TimeoutSec=60\n\n"
                + "[Install]\n"
                + "WantedBy=remote-fs.target\n";
    }

    private List<String> removeUnwanted(String wanted) throws IOException, SystemException {
        List<String> removed = new ArrayList<>();
        for (Path p : host.list(UNITS)) {
            String name = p.getFileName().toString();
            if (!name.endsWith(".mount") || name.equals(wanted)) {
                continue;
            }
            Optional<Files.Stat> s = files.stat(at(UNITS.resolve(name)));
            if (s.isPresent() && new String(s.get().content(), StandardCharsets.UTF_8).startsWith(MARK)) {
                services.stop(name);
                files.delete(at(UNITS.resolve(name)));
                services.reload();
                removed.add(name);
            }
        }
        return removed;
    }

    private void keepSlurmdDropIn(String path, List<String> done) throws IOException, SystemException {
        Path file = at(SLURMD_DROP_IN);
        Optional<Files.Stat> now = files.stat(file);
        if (path.isEmpty()) {
            if (now.isPresent()) {
                files.delete(file);
                services.reload();
                done.add("slurmd no longer waits for shared storage");
            }
            return;
        }
        byte[] want = (MARK + "\n[Unit]\nRequiresMountsFor=" + path + "\n").getBytes(StandardCharsets.UTF_8);
        if (now.isEmpty() || !Arrays.equals(now.get().content(), want)) {
            files.write(file, want, MODE, "root", "root");
            services.reload();
            done.add("slurmd starts only once " + path + " is mounted");
        }
    }

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
            if (f.length > 4 && dash > 0 && f.length > dash + 2 && f[4].replace("\\040", " ").equals(path)) {
                found = Optional.of(f[dash + 2] + ", " + f[dash + 1]);
            }
        }
        return found;
    }

    private Path at(Path absolute) {
        return ManagedFiles.under(root, absolute.toString());
    }
}
