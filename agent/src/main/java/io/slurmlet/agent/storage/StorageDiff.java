package io.slurmlet.agent.storage;

import static io.slurmlet.agent.reconcile.ManagedFiles.sha256;
import static io.slurmlet.agent.storage.StorageTexts.dropIn;
import static io.slurmlet.agent.storage.StorageTexts.exportsLine;
import static io.slurmlet.agent.storage.StorageTexts.ganeshaConf;
import static io.slurmlet.agent.storage.StorageTexts.unit;
import static io.slurmlet.agent.storage.StorageTexts.unitName;

import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.storage.StorageActions.Export;
import io.slurmlet.agent.storage.StorageActions.MakeExportDirs;
import io.slurmlet.agent.storage.StorageActions.Mount;
import io.slurmlet.agent.storage.StorageActions.RemoveDropIn;
import io.slurmlet.agent.storage.StorageActions.RemoveMount;
import io.slurmlet.agent.storage.StorageActions.Run;
import io.slurmlet.agent.storage.StorageActions.StorageAction;
import io.slurmlet.agent.storage.StorageActions.Unexport;
import io.slurmlet.agent.storage.StorageActions.WriteDropIn;
import io.slurmlet.model.observed.StorageSeen;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.StoragePlan;
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
     * the removal of other mounts; then, by the storage's mode, the export, or its removal and the site's
     * mount checked. While a job runs here, no mount is removed or mounted again from another export: that
     * waits for the machine to be free, and says so.
     */
    public static Diff diff(Wanted wanted, StorageSeen seen) {
        Pass pass = new Pass(wanted, seen);
        if (wanted.storage() instanceof StoragePlan.Mount m) {
            Diff foreign = pass.mount(m);
            if (foreign != null) {
                return foreign;
            }
        }
        pass.slurmdsWaitAndMountsThatGo();
        if (wanted.storage() instanceof StoragePlan.Export e) {
            return pass.export(e);
        }
        pass.unexport();
        if (wanted.storage() instanceof StoragePlan.Check) {
            return pass.check();
        }
        return pass.done(
                wanted.storage() instanceof StoragePlan.None
                        ? "no shared storage in the settings"
                        : "the shared storage is mounted");
    }

    /** systemd's name for the mount unit of {@code path} ({@link StorageTexts#unitName}). */
    public static String unitName(String path) {
        return StorageTexts.unitName(path);
    }

    /** One diff's way through the parts, with what they add up: the actions, the waits, the jobs here. */
    private static final class Pass {
        private final Wanted wanted;
        private final StorageSeen seen;
        private final String path;
        private final String jobs;
        private final List<StorageAction> a = new ArrayList<>();
        private final List<String> waiting = new ArrayList<>();
        private String wantedUnit = "";
        private boolean mounting;
        private List<Map.Entry<String, StorageSeen.Unit>> going = List.of();
        private boolean removing;

        Pass(Wanted wanted, StorageSeen seen) {
            this.wanted = wanted;
            this.seen = seen;
            this.path = wanted.storage().path();
            this.jobs = seen.jobs().isEmpty()
                    ? ""
                    : (seen.jobs().size() == 1 ? "job " : "jobs ") + String.join(", ", seen.jobs());
        }

        /** The wanted mount; a diff blocked where something slurmlet did not mount holds the path, else null. */
        Diff mount(StoragePlan.Mount m) {
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
                // wait for it is lifted around it.
                boolean lift = run == Run.RESTART
                        && wanted.slurmdWaits()
                        && !seen.slurmdDropIn().isEmpty();
                a.add(new Mount(
                        wantedUnit, m, changed ? text : null, !u.enabled(), run, u.what(), wanted.slurmdWaits(), lift));
                mounting = run == Run.START;
            }
            return null;
        }

        /** slurmd's wait for the storage (its drop-in), and slurmlet's mounts the plan no longer wants. */
        void slurmdsWaitAndMountsThatGo() {
            String waitFor = wanted.slurmdWaits() ? path : "";
            String kept = wantedUnit;
            going = new TreeMap<>(seen.mounts())
                    .entrySet().stream()
                            .filter(u -> !u.getKey().equals(kept)
                                    && !u.getValue().file().isEmpty())
                            .toList();
            boolean dropInGoes = waitFor.isEmpty() && !seen.slurmdDropIn().isEmpty();
            removing = jobs.isEmpty() && !going.isEmpty();
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
        }

        /** This machine as the server: the export to the cluster's machines, once nothing else is mounted there. */
        Diff export(StoragePlan.Export e) {
            String to = String.join(", ", e.clients());
            // Another export still mounted at the path (it waits for this machine's jobs): exported now, it would be
            // that export's files the clients get, gone from under them once it is unmounted.
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
                return done("");
            }
            if (e.clients().isEmpty()) {
                return done("the export of " + path + " waits for the cluster's machines to be known (slurm.conf)");
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
            return done("%s is exported to %s".formatted(path, to));
        }

        /** No longer the server: slurmlet's export removed where it is there. */
        void unexport() {
            if (!seen.exports().isEmpty() || seen.ganeshaOurs()) {
                a.add(new Unexport(!seen.exports().isEmpty(), seen.ganeshaOurs(), seen.exported()));
            }
        }

        /** The site mounts the storage itself: something must be mounted at the path, and not slurmlet's mount that goes. */
        Diff check() {
            boolean unmounting = a.stream()
                    .anyMatch(x -> x instanceof RemoveMount r && r.where().equals(path));
            if (seen.mountedAt().isEmpty() || unmounting) {
                return Diff.of(a, "")
                        .waitingFor(waiting)
                        .blockedBy(("nothing is mounted at %s (shared.path with neither nfs nor server means the site "
                                        + "mounts it): mount the shared file system there; slurmd waits for it")
                                .formatted(path));
            }
            return done(path + " is mounted (" + seen.mountedAt() + ")");
        }

        Diff done(String state) {
            return Diff.of(a, state).waitingFor(waiting);
        }
    }
}
