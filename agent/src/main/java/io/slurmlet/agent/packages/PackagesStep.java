package io.slurmlet.agent.packages;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.PackagesSeen;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The packages the plan names, installed: {@link PackagesDiff} decides, this step asks the
 * package manager what is missing and installs it. Never a removal.
 */
public final class PackagesStep extends Reconciler<PackagesDiff.Wanted, PackagesSeen> implements Reports {

    private final Packages packages;

    public PackagesStep(Packages packages) {
        super("packages", PackagesDiff::desired, PackagesDiff::diff);
        this.packages = packages;
    }

    /** One question to the package manager, of the plan's packages and every other one a plan can name. */
    @Override
    public PackagesSeen observe(PackagesDiff.Wanted wanted) throws SystemException {
        List<String> looked = wanted.looked();
        Set<String> missing = new HashSet<>(packages.missing(looked));
        return new PackagesSeen(
                looked.stream().filter(p -> !missing.contains(p)).toList(),
                looked.stream().filter(missing::contains).toList());
    }

    @Override
    protected void act(PackagesDiff.Wanted wanted, Action action) throws SystemException {
        if (!(action instanceof PackagesDiff.Install install)) {
            throw new IllegalArgumentException("not a packages action: " + action);
        }
        packages.install(install.packages());
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withPackages(seen().orElse(null));
    }
}
