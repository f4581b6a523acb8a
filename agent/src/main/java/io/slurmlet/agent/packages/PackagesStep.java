package io.slurmlet.agent.packages;

import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.SystemException;

import java.util.List;

/**
 * The packages the plan names, installed: only what is missing, never a removal (a machine that
 * leaves the Slurm cluster keeps what was installed, as the settings promise).
 */
public final class PackagesStep implements Step {

    private final Packages packages;

    public PackagesStep(Packages packages) {
        this.packages = packages;
    }

    @Override
    public String name() {
        return "packages";
    }

    @Override
    public Outcome apply(NodePlan plan) {
        if (plan.packages().isEmpty()) {
            return Outcome.unchanged(name(), "no packages to have");
        }
        try {
            List<String> missing = packages.missing(plan.packages());
            if (missing.isEmpty()) {
                return Outcome.unchanged(name(), "installed: " + String.join(", ", plan.packages()));
            }
            packages.install(missing);
            return Outcome.changed(name(), "installed " + String.join(", ", missing));
        } catch (SystemException e) {
            return Outcome.failed(name(), e.getMessage());
        }
    }
}
