package io.slurmlet.agent.storage;

import static io.slurmlet.agent.reconcile.ManagedFiles.sha256;

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

    private StorageDiff() {}

    /**
     * What a plan wants of the shared storage here.
     *
     * @param storage     the planner's decision
     * @param slurmdWaits whether slurmd runs here, and so waits for the storage (a drop-in)
     */
    public record Wanted(StoragePlan storage, boolean slurmdWaits) {}

    public static Wanted desired(NodePlan plan) {
        return new Wanted(plan.storage(), plan.runs(Role.COMPUTE));
    }

    /** What a machine that has made {@code wanted} true holds: what a preview assumes of a machine that has not reported. */
    public static StorageSeen assumed(Wanted wanted) {
        Map<String, StorageSeen.Unit> mounts = new TreeMap<>();
        String drop = "";
        String exports = "";
        String exported = "";
        StorageSeen.Unit server = null;
        StoragePlan p = wanted.storage();
        if (p instanceof StoragePlan.Mount m) {
            mounts.put(unitName(m.path()), new StorageSeen.Unit(sha256(unit(m)), true, true, m.source(), m.path()));
        }
        if (wanted.slurmdWaits() && !p.path().isEmpty()) {
            drop = sha256(dropIn(p.path()));
        }
        if (p instanceof StoragePlan.Export e && !e.clients().isEmpty()) {
            exports = sha256(exportsLine(e.path(), e.clients()));
            exported = e.path();
            server = new StorageSeen.Unit("", true, true);
        }
        return new StorageSeen(
                mounts,
                drop,
                exports,
                "",
                false,
                true,
                0,
                server,
                p instanceof StoragePlan.Check ? "the site's" : "",
                exported,
                List.of());
    }

    /**
     * What to do, in order: the wanted mount (a remount with slurmd's wait for it lifted around it, as
     * systemd stops what requires a mount it restarts); slurmd's wait for it (before any other mount
     * goes, so that systemd, having read the drop-in again, no longer stops slurmd with a mount that goes);
     * the removal of other mounts; then the export or its removal. While a job runs here, no mount is
     * removed or mounted again from another export: that waits for the machine to be free, and says so.
     */
    public static Diff diff(Wanted wanted, StorageSeen seen) {
        List<StorageAction> a = new ArrayList<>();
        List<String> waiting = new ArrayList<>();
        StoragePlan p = wanted.storage();
        String path = p.path();
        String wantedUnit = "";
        boolean mounting = false;
        String jobs = seen.jobs().isEmpty()
                ? ""
                : (seen.jobs().size() == 1 ? "job " : "jobs ") + String.join(", ", seen.jobs());
        if (p instanceof StoragePlan.Mount m) {
            wantedUnit = unitName(path);
            String text = unit(m);
            StorageSeen.Unit u = seen.mounts().getOrDefault(wantedUnit, NONE);
            boolean changed = !u.file().equals(sha256(text));
            Run run = !u.active() ? Run.START : changed ? Run.RESTART : Run.NONE;
            if (u.active() && u.file().isEmpty()) {
                // Something slurmlet did not mount (a disk in fstab, a mount by hand): never unmounted by it.
                return Diff.of(a, "")
                        .waitingFor(waiting)
                        .blockedBy(("%s is already mounted at %s, not by slurmlet (/etc/fstab, or by hand): "
                                        + "slurmlet does not unmount what it did not mount; unmount it there (and remove it from /etc/fstab), or set "
                                        + "shared.path to a free folder, and the next pass mounts %s")
                                .formatted(u.what().isEmpty() ? "a file system" : u.what(), path, m.source()));
            }
            if (run == Run.RESTART && !jobs.isEmpty()) {
                waiting.add("mounting %s at %s instead of %s waits for %s running here to end"
                        .formatted(m.source(), path, u.what().isEmpty() ? "what is mounted there" : u.what(), jobs));
            } else if (changed || !u.enabled() || run != Run.NONE) {
                // A remount (another export, or its unit changed) stops every unit that requires the mount: slurmd's
                // wait
                // for it is lifted around it.
                boolean lift = run == Run.RESTART
                        && wanted.slurmdWaits()
                        && !seen.slurmdDropIn().isEmpty();
                a.add(new Mount(
                        wantedUnit, m, changed ? text : null, !u.enabled(), run, u.what(), wanted.slurmdWaits(), lift));
                mounting = run == Run.START;
            }
        }
        String waitFor = wanted.slurmdWaits() ? path : "";
        String kept = wantedUnit;
        List<Map.Entry<String, StorageSeen.Unit>> going = new TreeMap<>(seen.mounts())
                .entrySet().stream()
                        .filter(u ->
                                !u.getKey().equals(kept) && !u.getValue().file().isEmpty())
                        .toList();
        boolean dropInGoes = waitFor.isEmpty() && !seen.slurmdDropIn().isEmpty();
        boolean removing = jobs.isEmpty() && !going.isEmpty();
        // A mount that goes from the path slurmd goes on waiting for (a client of it becomes its server,
        // or the site mounts it from now on): slurmd's wait is lifted around the unmount, then put back.
        boolean samePath = removing
                && !waitFor.isEmpty()
                && going.stream().anyMatch(u -> u.getValue().where().equals(waitFor));
        if (dropInGoes || samePath) {
            a.add(new RemoveDropIn(removing));
        } else if (!waitFor.isEmpty() && !seen.slurmdDropIn().equals(sha256(dropIn(waitFor)))) {
            a.add(new WriteDropIn(waitFor, dropIn(waitFor), mounting));
        }
        for (var unit : going) {
            StorageSeen.Unit u = unit.getValue();
            if (!jobs.isEmpty()) {
                waiting.add("unmounting %s waits for %s running here to end"
                        .formatted(u.where().isEmpty() ? unit.getKey() : u.where(), jobs));
            } else {
                a.add(new RemoveMount(unit.getKey(), u.what(), u.where(), dropInGoes || samePath));
            }
        }
        if (samePath) {
            a.add(new WriteDropIn(waitFor, dropIn(waitFor), true));
        }
        if (p instanceof StoragePlan.Export e) {
            String to = String.join(", ", e.clients());
            // Another export still mounted at the path (it waits for this machine's jobs): exported now, it would be
            // that
            // export's files the clients get, gone from under them once it is unmounted.
            var over = going.stream()
                    .filter(u -> u.getValue().where().equals(path))
                    .findFirst();
            if (over.isPresent() && !removing) {
                waiting.add("exporting %s waits for %s to be unmounted from it, once %s running here %s ended"
                        .formatted(
                                path,
                                over.get().getValue().what().isEmpty()
                                        ? over.get().getKey()
                                        : over.get().getValue().what(),
                                jobs,
                                seen.jobs().size() == 1 ? "has" : "have"));
                return Diff.of(a, "").waitingFor(waiting);
            }
            if (e.clients().isEmpty()) {
                return Diff.of(
                                a,
                                "the export of " + path + " waits for the cluster's machines to be known (slurm.conf)")
                        .waitingFor(waiting);
            }
            a.add(new MakeExportDirs(path));
            StorageSeen.Unit server = seen.server() == null ? NONE : seen.server();
            String text = seen.kernelServer()
                    ? exportsLine(path, e.clients())
                    : ganeshaConf(path, e.clients(), seen.ganeshaMajor() >= 6);
            boolean changed = !(seen.kernelServer() ? seen.exports() : seen.ganeshaConf()).equals(sha256(text));
            Run run = !server.active() ? Run.START : changed ? Run.RESTART : Run.NONE;
            if (changed || !server.enabled() || run != Run.NONE) {
                a.add(new Export(seen.kernelServer(), path, to, changed ? text : null, !server.enabled(), run));
            }
            return Diff.of(a, "%s is exported to %s".formatted(path, to)).waitingFor(waiting);
        }
        if (!seen.exports().isEmpty() || seen.ganeshaOurs()) {
            a.add(new Unexport(!seen.exports().isEmpty(), seen.ganeshaOurs(), seen.exported()));
        }
        if (p instanceof StoragePlan.Check) {
            // What is mounted there now may be slurmlet's own mount, which this pass removes.
            boolean unmounting = a.stream()
                    .anyMatch(x -> x instanceof RemoveMount r && r.where().equals(path));
            if (seen.mountedAt().isEmpty() || unmounting) {
                return Diff.of(a, "")
                        .waitingFor(waiting)
                        .blockedBy(("nothing is mounted at %s (shared.path with neither nfs nor server means the site "
                                        + "mounts it): mount the shared file system there; slurmd waits for it")
                                .formatted(path));
            }
            return Diff.of(a, path + " is mounted (" + seen.mountedAt() + ")").waitingFor(waiting);
        }
        return Diff.of(
                        a,
                        p instanceof StoragePlan.None
                                ? "no shared storage in the settings"
                                : "the shared storage is mounted")
                .waitingFor(waiting);
    }

    /** What a unit is to do: start (it does not run), restart (its file changed while it runs), or nothing. */
    enum Run {
        START,
        RESTART,
        NONE
    }

    /** What the storage step does; only {@link StorageStep} knows how. */
    sealed interface StorageAction extends Action
            permits Mount, RemoveMount, WriteDropIn, RemoveDropIn, MakeExportDirs, Export, Unexport {}

    /**
     * The wanted mount: its unit written (when {@code text} is not null), enabled, started or restarted.
     *
     * @param was         the export mounted there now; "" when none, or unknown
     * @param slurmdWaits whether slurmd runs here and waits for it
     * @param lift        whether slurmd's wait (its drop-in) is lifted around a remount, which would stop slurmd with it
     */
    record Mount(
            String unit,
            StoragePlan.Mount mount,
            String text,
            boolean enable,
            Run run,
            String was,
            boolean slurmdWaits,
            boolean lift)
            implements StorageAction {
        public String will() {
            if (run == Run.START) {
                return "mount %s at %s%s"
                        .formatted(mount.source(), mount.path(), slurmdWaits ? " (slurmd waits for it)" : "");
            }
            if (run == Run.RESTART) {
                return !was.isEmpty() && !was.equals(mount.source())
                        ? "mount %s at %s again, instead of %s".formatted(mount.source(), mount.path(), was)
                        : "mount %s at %s again, its mount unit changed".formatted(mount.source(), mount.path());
            }
            return "enable " + unit;
        }

        public String did() {
            List<String> did = new ArrayList<>();
            if (text != null) {
                did.add("wrote " + unit);
            }
            if (run == Run.START) {
                did.add("mounted " + mount.source() + " at " + mount.path());
            } else if (run == Run.RESTART) {
                did.add("mounted " + mount.source() + " at " + mount.path() + " again (its mount unit changed)");
            }
            return String.join("; ", did);
        }

        @Override
        public boolean housekeeping() {
            return text == null && run == Run.NONE;
        }

        @Override
        public String failed(String error) {
            return ("%s: the export %s could not be mounted at %s (%s): check that it answers and exports %s to this machine; slurmd "
                            + "waits for it")
                    .formatted(
                            mount.ours() ? "shared.server" : "shared.nfs",
                            mount.source(),
                            mount.path(),
                            error,
                            mount.path());
        }
    }

    /**
     * A mount unit of slurmlet's that the plan no longer wants: stopped and removed, once no job
     * runs here. slurmd's wait for it is gone or moved by then (its drop-in is changed first), so
     * stopping the mount does not stop slurmd.
     *
     * @param what       its export, where its unit file says; "" when unknown
     * @param where      its folder
     * @param withDropIn whether slurmd's wait goes in the same pass
     */
    record RemoveMount(String unit, String what, String where, boolean withDropIn) implements StorageAction {
        public String will() {
            return (what.isEmpty() || where.isEmpty()
                            ? "unmount and remove the mount unit " + unit
                            : "unmount %s from %s and remove its mount unit".formatted(what, where))
                    + (withDropIn ? " and slurmd's wait for it (first, so slurmd keeps running)" : "");
        }

        public String did() {
            return "unmounted and removed " + unit;
        }
    }

    /** @param saidWithMount whether the fresh mount's own sentence says so */
    record WriteDropIn(String path, String text, boolean saidWithMount) implements StorageAction {
        public String will() {
            return "have slurmd start only once " + path + " is mounted";
        }

        public String did() {
            return "slurmd starts only once " + path + " is mounted";
        }

        @Override
        public boolean housekeeping() {
            return saidWithMount;
        }
    }

    /** @param saidWithUnmount whether an unmount's own sentence says so (it comes right after) */
    record RemoveDropIn(boolean saidWithUnmount) implements StorageAction {
        public String will() {
            return "have slurmd no longer wait for shared storage";
        }

        public String did() {
            return "slurmd no longer waits for shared storage";
        }

        @Override
        public boolean housekeeping() {
            return saidWithUnmount;
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

    /**
     * The export: the kernel's exports file of slurmlet's own (re-read by exportfs while the server
     * runs) or ganesha.conf, written when {@code text} is not null; the server enabled, started, or
     * (ganesha) restarted for its new configuration.
     */
    record Export(boolean kernel, String path, String to, String text, boolean enable, Run run)
            implements StorageAction {
        public String will() {
            if (run == Run.START) {
                return "export %s to %s".formatted(path, to);
            }
            return text != null ? "export %s again, now to %s".formatted(path, to) : "enable " + unit();
        }

        public String did() {
            List<String> did = new ArrayList<>();
            if (text != null) {
                did.add("wrote " + (kernel ? StorageStep.EXPORTS : StorageStep.GANESHA_CONF));
            }
            if (run == Run.START) {
                did.add("exported %s with %s to %s"
                        .formatted(path, kernel ? "the kernel's NFS server" : "nfs-ganesha", to));
            } else if (run == Run.RESTART && !kernel) {
                did.add("exported %s again, now to %s".formatted(path, to));
            }
            return String.join("; ", did);
        }

        @Override
        public boolean housekeeping() {
            return text == null && run == Run.NONE;
        }

        String unit() {
            return kernel ? KERNEL_SERVER : GANESHA;
        }
    }

    /**
     * No longer shared.server: slurmlet's exports file removed (and re-read) and its ganesha stopped and its configuration removed.
     *
     * @param path what was exported; "" when unknown
     */
    record Unexport(boolean exportsFile, boolean ganesha, String path) implements StorageAction {
        public String will() {
            return "stop exporting " + (path.isEmpty() ? "the shared storage" : path);
        }

        public String did() {
            List<String> did = new ArrayList<>();
            if (exportsFile) {
                did.add("removed " + StorageStep.EXPORTS + " (no longer shared.server)");
            }
            if (ganesha) {
                did.add("stopped exporting the shared storage (no longer shared.server)");
            }
            return String.join("; ", did);
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
            } else if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == ':'
                    || c == '_'
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
                + "EXPORT {\n    Export_Id = 1;\n    Path = " + path + ";\n    Pseudo = " + path
                + ";\n    Protocols = 3, 4;\n"
                + "    Transports = TCP;\n    SecType = sys;\n    Squash = No_Root_Squash;\n    Access_Type = None;\n"
                + "    CLIENT {\n        Clients = " + String.join(", ", clients)
                + ";\n        Access_Type = RW;\n    }\n"
                + "    FSAL {\n        Name = VFS;\n    }\n}\n";
    }
}
