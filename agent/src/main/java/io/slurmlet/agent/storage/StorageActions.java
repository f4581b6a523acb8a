package io.slurmlet.agent.storage;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.model.plan.StoragePlan;
import java.util.ArrayList;
import java.util.List;

/**
 * What the storage step does, as {@link StorageDiff} decides it and the leader's preview shows it:
 * a mount of the shared storage (written, enabled, started or mounted again), a mount that goes,
 * slurmd's wait for the storage, and the export or its end. Only {@link StorageStep} knows how.
 */
final class StorageActions {

    private StorageActions() {}

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
            return kernel ? StorageTexts.KERNEL_SERVER : StorageTexts.GANESHA;
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
}
