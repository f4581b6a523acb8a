package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.plan.NodePlan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** slurmd's and slurmctld's restart drop-ins ({@link UnitsDiff}), each read by systemd once written. */
public final class UnitsStep extends Reconciler<UnitsDiff.Wanted, UnitsDiff.Seen> {

    private final Files files;
    private final Services services;
    private final Path root;

    public UnitsStep(Files files, Services services, Path root) {
        super("units", UnitsDiff::desired, UnitsDiff::diff);
        this.files = files;
        this.services = services;
        this.root = root;
    }



    @Override
    public UnitsDiff.Seen observe(UnitsDiff.Wanted wanted) throws IOException {
        Map<String, String> seen = new TreeMap<>();
        for (String unit : wanted.daemons()) {
            Optional<Files.Stat> now = files.stat(ManagedFiles.under(root, UnitsDiff.dropIn(unit)));
            now.ifPresent(f -> seen.put(unit, new String(f.content(), StandardCharsets.UTF_8)));
        }
        return new UnitsDiff.Seen(seen);
    }


    @Override
    protected void act(UnitsDiff.Wanted desired, Action action) throws IOException, SystemException {
        if (!(action instanceof UnitsDiff.Write w)) {
            throw new IllegalArgumentException("not a units action: " + action);
        }
        files.write(ManagedFiles.under(root, UnitsDiff.dropIn(w.unit())), UnitsDiff.text(w.unit()).getBytes(StandardCharsets.UTF_8),
                "rw-r--r--", "root", "root");
        services.reload();
    }
}
