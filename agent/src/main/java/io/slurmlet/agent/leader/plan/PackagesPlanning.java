package io.slurmlet.agent.leader.plan;

import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.PamPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.StoragePlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** What a machine installs for its roles, in its package manager's names (apt's or dnf's). */
final class PackagesPlanning {

    private PackagesPlanning() {}

    /**
     * The packages of a machine's roles, in its package manager's names, with the NFS server where it
     * exports the shared storage, the NFS client (mount.nfs, showmount) where it mounts it, and
     * pam_slurm_adopt where it is to be in sshd's stack.
     */
    static List<String> packages(Set<Role> roles, String os, StoragePlan storage, PamPlan pam) {
        return packages(roles, os, storage, pam, ContainersPlan.NONE);
    }

    /** The same, with what pyxis is built with where containers are installed (a compiler, make, Slurm's headers). */
    static List<String> packages(
            Set<Role> roles, String os, StoragePlan storage, PamPlan pam, ContainersPlan containers) {
        List<String> packages = new ArrayList<>(packages(roles, os));
        if (containers.install()) {
            packages.addAll(
                    isRpmFamily(os)
                            ? List.of("gcc", "make", "slurm-devel")
                            : List.of("gcc", "make", "libc6-dev", "libslurm-dev"));
        }
        if (storage instanceof StoragePlan.Export) {
            packages.addAll(List.of("nfs-ganesha", "nfs-ganesha-vfs"));
        }
        if (storage instanceof StoragePlan.Mount) {
            packages.add(isRpmFamily(os) ? "nfs-utils" : "nfs-common");
        }
        if (pam.adopt()) {
            packages.add(isRpmFamily(os) ? "slurm-pam_slurm" : "libpam-slurm-adopt");
        }
        return packages;
    }

    /** The packages of a machine's roles, in its package manager's names. */
    static List<String> packages(Set<Role> roles, String os) {
        if (roles.isEmpty()) {
            return List.of();
        }
        boolean rpm = isRpmFamily(os);
        List<String> packages = new ArrayList<>(List.of("munge", rpm ? "slurm" : "slurm-client"));
        if (roles.contains(Role.CONTROLLER)) {
            packages.add(rpm ? "slurm-slurmctld" : "slurmctld");
        }
        if (roles.contains(Role.COMPUTE)) {
            packages.add(rpm ? "slurm-slurmd" : "slurmd");
        }
        return packages;
    }

    private static boolean isRpmFamily(String os) {
        String id = os.toLowerCase(Locale.ROOT).split(" ")[0];
        return Set.of("rhel", "rocky", "almalinux", "centos", "fedora", "ol", "amzn")
                .contains(id);
    }
}
