package io.slurmlet.agent.packages;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.model.observed.PackagesSeen;
import io.slurmlet.model.plan.NodePlan;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The packages step's pure half: the packages the plan names, and the one install of those the
 * machine lacks. Nothing is ever removed: a machine that leaves the Slurm cluster keeps what was
 * installed, as the settings promise.
 */
public final class PackagesDiff {

    /**
     * Every package a plan of slurmlet's can name, in Debian's and in EPEL's names: the step looks
     * at these as well, so a dry run that gives a machine a role says what that would install.
     */
    public static final List<String> KNOWN = List.of(
            "munge",
            "slurm-client",
            "slurmctld",
            "slurmd",
            "libpam-slurm-adopt",
            "nfs-ganesha",
            "nfs-ganesha-vfs",
            "nfs-common",
            "slurm",
            "slurm-slurmctld",
            "slurm-slurmd",
            "slurm-pam_slurm",
            "nfs-utils");

    private PackagesDiff() {}

    /** @param packages what the machine needs, in its package manager's names */
    public record Wanted(List<String> packages) {
        public Wanted {
            packages = List.copyOf(packages);
        }

        /** What the step looks at: the plan's packages and every other one a plan can name. */
        public List<String> looked() {
            Set<String> all = new LinkedHashSet<>(packages);
            all.addAll(KNOWN);
            return List.copyOf(all);
        }
    }

    public static Wanted desired(NodePlan plan) {
        return new Wanted(plan.packages());
    }

    /** What a machine that applied {@code wanted} holds: its packages installed. */
    public static PackagesSeen assumed(Wanted wanted) {
        return new PackagesSeen(wanted.packages(), List.of());
    }

    /** The install of what is missing; a package the machine did not report on is taken to be missing. Pure. */
    public static Diff diff(Wanted wanted, PackagesSeen seen) {
        if (wanted.packages().isEmpty()) {
            return Diff.of(List.of(), "no packages to have");
        }
        Set<String> installed = new HashSet<>(seen.installed());
        List<String> missing =
                wanted.packages().stream().filter(p -> !installed.contains(p)).toList();
        return Diff.of(
                missing.isEmpty() ? List.of() : List.of(new Install(missing)),
                "installed: " + String.join(", ", wanted.packages()));
    }

    /** One install of every missing package (and what they need), without asking. */
    public record Install(List<String> packages) implements Action {
        public Install {
            packages = List.copyOf(packages);
        }

        public String will() {
            return "install " + String.join(", ", packages);
        }

        public String did() {
            return "installed " + String.join(", ", packages);
        }
    }
}
