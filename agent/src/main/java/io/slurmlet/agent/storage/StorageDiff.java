package io.slurmlet.agent.storage;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.model.observed.StorageSeen;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.StoragePlan;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.slurmlet.agent.reconcile.ManagedFiles.sha256;

/**
 * The storage step's pure half: what a plan wants of the shared storage on a machine, and the
 * actions that make what the machine holds ({@link StorageSeen}) into it. The agent's
 * {@link StorageStep} acts on these actions; the leader's preview shows the same ones, computed
 * against what the machine last reported, so the two cannot disagree.
 */
public final class StorageDiff {

    static final String MARK = "# Written by slurmlet: the Slurm cluster's shared storage.";
    static final String KERNEL_SERVER = "nfs-server";
    static final String GANESHA = "nfs-ganesha";
    private static final StorageSeen.Unit NONE = new StorageSeen.Unit("", false, false);

    private StorageDiff() {
    }

    /**
     * What a plan wants of the shared storage here.
     *
     * @param storage     the planner's decision
     * @param slurmdWaits whether slurmd runs here, and so waits for the storage (a drop-in)
     */
    public record Wanted(StoragePlan storage, boolean slurmdWaits) {
    }

    public static Wanted desired(NodePlan plan) {
        return new Wanted(plan.storage(), plan.runs(Role.COMPUTE));
    }

    /** What a machine that has made {@code wanted} true holds: what a preview assumes of a machine that has not reported. */
    public static StorageSeen assumed(Wanted wanted) {
        Map<String, StorageSeen.Unit> mounts = new TreeMap<>();
        String drop = "";
        String exports = "";
        StorageSeen.Unit server = null;
        StoragePlan p = wanted.storage();
        if (p instanceof StoragePlan.Mount m) {
            mounts.put(unitName(m.path()), new StorageSeen.Unit(sha256(unit(m)), true, true));
        }
        if (wanted.slurmdWaits() && !p.path().isEmpty()) {
            drop = sha256(dropIn(p.path()));
        }
        if (p instanceof StoragePlan.Export e && !e.clients().isEmpty()) {
            exports = sha256(exportsLine(e.path(), e.clients()));
            server = new StorageSeen.Unit("", true, true);
        }
        return new StorageSeen(mounts, drop, exports, "", false, true, 0, server, p instanceof StoragePlan.Check ? "the site's" : "");
    }

    /** What to do, in order: the wanted mount, the removal of others, slurmd's wait, then the export or its removal. */
    public static Diff diff(Wanted wanted, StorageSeen seen) {
        List<StorageAction> a = new ArrayList<>();
        StoragePlan p = wanted.storage();
        String path = p.path();
        String wantedUnit = "";
        if (p instanceof StoragePlan.Mount m) {
            wantedUnit = unitName(path);
            String text = unit(m);
            StorageSeen.Unit u = seen.mounts().getOrDefault(wantedUnit, NONE);
            boolean changed = !u.file().equals(sha256(text));
            if (changed) {
                a.add(new WriteMountUnit(wantedUnit, text));
            }
            if (!u.enabled()) {
                a.add(new Enable(wantedUnit));
            }
            if (!u.active()) {
                a.add(new Mount(wantedUnit, m, false));
            } else if (changed) {
                a.add(new Mount(wantedUnit, m, true));
            }
        }
        for (var unit : new TreeMap<>(seen.mounts()).entrySet()) {
            if (!unit.getKey().equals(wantedUnit) && !unit.getValue().file().isEmpty()) {
                a.add(new RemoveMount(unit.getKey(), wanted.slurmdWaits()));
            }
        }
        String waitFor = wanted.slurmdWaits() ? path : "";
        if (waitFor.isEmpty()) {
            if (!seen.slurmdDropIn().isEmpty()) {
                a.add(new RemoveDropIn());
            }
        } else if (!seen.slurmdDropIn().equals(sha256(dropIn(waitFor)))) {
            a.add(new WriteDropIn(waitFor, dropIn(waitFor)));
        }
        if (p instanceof StoragePlan.Export e) {
            String to = String.join(", ", e.clients());
            if (e.clients().isEmpty()) {
                return Diff.of(a, "the export of " + path + " waits for the cluster's machines to be known (slurm.conf)");
            }
            a.add(new MakeExportDirs(path));
            StorageSeen.Unit server = seen.server() == null ? NONE : seen.server();
            if (seen.kernelServer()) {
                String text = exportsLine(path, e.clients());
                if (!seen.exports().equals(sha256(text))) {
                    a.add(new WriteExports(text, server.active()));
                }
                if (!server.enabled()) {
                    a.add(new Enable(KERNEL_SERVER));
                }
                if (!server.active()) {
                    a.add(new StartServer(KERNEL_SERVER, false, "exported %s with the kernel's NFS server to %s".formatted(path, to)));
                }
            } else {
                String text = ganeshaConf(path, e.clients(), seen.ganeshaMajor() >= 6);
                boolean changed = !seen.ganeshaConf().equals(sha256(text));
                if (changed) {
                    a.add(new WriteGanesha(text));
                }
                if (!server.enabled()) {
                    a.add(new Enable(GANESHA));
                }
                if (!server.active()) {
                    a.add(new StartServer(GANESHA, false, "exported %s with nfs-ganesha to %s".formatted(path, to)));
                } else if (changed) {
                    a.add(new StartServer(GANESHA, true, "exported %s again, now to %s".formatted(path, to)));
                }
            }
            return Diff.of(a, "%s is exported to %s".formatted(path, to));
        }
        if (!seen.exports().isEmpty()) {
            a.add(new RemoveExports());
        }
        if (seen.ganeshaOurs()) {
            a.add(new StopGanesha());
        }
        if (p instanceof StoragePlan.Check) {
            if (seen.mountedAt().isEmpty()) {
                return Diff.of(a, "").blockedBy(("nothing is mounted at %s (shared.path with neither nfs nor server means the site "
                        + "mounts it): mount the shared file system there; slurmd waits for it").formatted(path));
            }
            return Diff.of(a, path + " is mounted (" + seen.mountedAt() + ")");
        }
        return Diff.of(a, p instanceof StoragePlan.None ? "no shared storage in the settings" : "the shared storage is mounted");
    }

    /** What the storage step does; only {@link StorageStep} knows how. */
    sealed interface StorageAction extends Action permits WriteMountUnit, Enable, Mount, RemoveMount, WriteDropIn, RemoveDropIn,
            MakeExportDirs, WriteExports, WriteGanesha, StartServer, RemoveExports, StopGanesha {
    }

    record WriteMountUnit(String unit, String text) implements StorageAction {
        public String will() {
            return "write the mount unit " + unit;
        }

        public String did() {
            return "wrote " + unit;
        }
    }

    /** A unit meant to run from now on, at boot too; not worth a line of its own. */
    record Enable(String unit) implements StorageAction {
        public String will() {
            return "enable " + unit;
        }

        public String did() {
            return "";
        }
    }

    record Mount(String unit, StoragePlan.Mount mount, boolean again) implements StorageAction {
        public String will() {
            return again ? "mount %s at %s again, the export changed".formatted(mount.source(), mount.path())
                    : "mount %s at %s (slurmd waits for it)".formatted(mount.source(), mount.path());
        }

        public String did() {
            return again ? "mounted %s at %s again (the export changed)".formatted(mount.source(), mount.path())
                    : "mounted %s at %s".formatted(mount.source(), mount.path());
        }

        @Override
        public String failed(String error) {
            return ("%s: the export %s could not be mounted at %s (%s): check that it answers and exports %s to this machine; slurmd "
                    + "waits for it").formatted(mount.ours() ? "shared.server" : "shared.nfs", mount.source(), mount.path(), error,
                    mount.path());
        }
    }

    /**
     * A mount unit of slurmlet's that the plan no longer wants: stopped and removed.
     *
     * @param slurmdWaits whether slurmd runs here: systemd stops it with the mount (its RequiresMountsFor=)
     */
    record RemoveMount(String unit, boolean slurmdWaits) implements StorageAction {
        public String will() {
            return "unmount and remove " + unit + (slurmdWaits ? "; systemd stops slurmd with the mount (its RequiresMountsFor=)" : "");
        }

        public String did() {
            return "unmounted and removed " + unit;
        }
    }

    record WriteDropIn(String path, String text) implements StorageAction {
        public String will() {
            return "have slurmd start only once " + path + " is mounted";
        }

        public String did() {
            return "slurmd starts only once " + path + " is mounted";
        }
    }

    record RemoveDropIn() implements StorageAction {
        public String will() {
            return "have slurmd no longer wait for shared storage";
        }

        public String did() {
            return "slurmd no longer waits for shared storage";
        }
    }

    /** The exported folder and its home folder, made where missing (install -d); done at every pass, not worth a line. */
    record MakeExportDirs(String path) implements StorageAction {
        public String will() {
            return "make " + path + " and " + path + "/home where missing";
        }

        public String did() {
            return "";
        }
    }

    /** @param reread whether the kernel's server runs and re-reads its exports (exportfs -ra) */
    record WriteExports(String text, boolean reread) implements StorageAction {
        public String will() {
            return "write " + StorageStep.EXPORTS + (reread ? " and have the kernel's NFS server read it (exportfs -ra)" : "");
        }

        public String did() {
            return "wrote " + StorageStep.EXPORTS;
        }
    }

    record WriteGanesha(String text) implements StorageAction {
        public String will() {
            return "write " + StorageStep.GANESHA_CONF;
        }

        public String did() {
            return "wrote " + StorageStep.GANESHA_CONF;
        }
    }

    /** @param restart whether it runs and is restarted for a new configuration */
    record StartServer(String unit, boolean restart, String done) implements StorageAction {
        public String will() {
            return (restart ? "restart " : "start ") + unit + ": " + done.replaceFirst("^exported", "export");
        }

        public String did() {
            return done;
        }
    }

    record RemoveExports() implements StorageAction {
        public String will() {
            return "remove " + StorageStep.EXPORTS + " and have the kernel's NFS server stop exporting it (no longer shared.server)";
        }

        public String did() {
            return "removed " + StorageStep.EXPORTS + " (no longer shared.server)";
        }
    }

    record StopGanesha() implements StorageAction {
        public String will() {
            return "stop nfs-ganesha and remove slurmlet's ganesha.conf (no longer shared.server)";
        }

        public String did() {
            return "stopped exporting the shared storage (no longer shared.server)";
        }
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

    static String unit(StoragePlan.Mount m) {
        return unit(m.source(), m.path(), m.ours() ? "_netdev,vers=3" : "_netdev");
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

    static String dropIn(String path) {
        return MARK + "\n[Unit]\nRequiresMountsFor=" + path + "\n";
    }

    static String exportsLine(String path, List<String> clients) {
        StringBuilder line = new StringBuilder(MARK + "\n" + path);
        for (String c : clients) {
            line.append(' ').append(c).append("(rw,sync,no_subtree_check,no_root_squash)");
        }
        return line.append('\n').toString();
    }

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
}
