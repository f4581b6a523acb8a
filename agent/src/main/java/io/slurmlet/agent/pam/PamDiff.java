package io.slurmlet.agent.pam;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.model.observed.PamSeen;
import io.slurmlet.model.plan.NodePlan;
import java.util.ArrayList;
import java.util.List;

/**
 * The PAM step's pure half: whether a plan wants pam_slurm_adopt in sshd's stack here, and the
 * actions that get it there (or put the site's stack back) from what the machine holds
 * ({@link PamSeen}). {@link PamStep} acts on them; a preview shows the same ones.
 */
public final class PamDiff {

    /** Where an agent keeps the original /etc/pam.d/sshd unless its state directory is elsewhere. */
    public static final String DEFAULT_BACKUP = "/var/lib/slurmlet/pam/sshd.orig";

    private PamDiff() {}

    /**
     * @param adopt     whether pam_slurm_adopt is to be in sshd's stack (the planner's decision)
     * @param slurmConf the sha256 of the plan's slurm.conf: pam_slurm_adopt waits for slurmd to run it
     * @param backup    where the agent keeps the original
     */
    public record Wanted(boolean adopt, String slurmConf, String backup) {}

    public static Wanted desired(NodePlan plan, String backup) {
        String conf = plan.files().getOrDefault("/etc/slurm/slurm.conf", "");
        return new Wanted(plan.pam().adopt(), conf.isEmpty() ? "" : ManagedFiles.sha256(conf), backup);
    }

    /** A machine that has made {@code wanted} true (what a preview assumes of one that has not reported). */
    public static PamSeen assumed(Wanted wanted) {
        String sshd = ManagedFiles.sha256(wanted.adopt() ? "slurmlet's sshd" : "the site's sshd");
        String access = ManagedFiles.sha256("access");
        return new PamSeen(
                wanted.adopt(),
                sshd,
                wanted.adopt(),
                ManagedFiles.sha256("slurmlet's sshd"),
                "/usr/lib/security/pam_slurm_adopt.so",
                wanted.adopt() ? access : "",
                access,
                wanted.slurmConf(),
                true,
                "");
    }

    /** The same machine as {@code seen} once the steps before this one have made {@code wanted}'s slurm.conf what slurmd runs. */
    public static PamSeen afterSlurm(PamSeen seen, Wanted wanted, boolean slurmdRuns) {
        return new PamSeen(
                seen.kept(),
                seen.sshd(),
                seen.ours(),
                seen.wantedSshd(),
                seen.module(),
                seen.access(),
                seen.wantedAccess(),
                wanted.slurmConf(),
                slurmdRuns,
                seen.adminGroupProblem());
    }

    public static Diff diff(Wanted wanted, PamSeen seen) {
        if (!wanted.adopt()) {
            return seen.kept()
                    ? Diff.of(List.of(new PutBack()), "")
                    : Diff.of(List.of(), "sshd's PAM stack is the site's");
        }
        if (!seen.adminGroupProblem().isEmpty()) {
            return Diff.of(List.of(), "").blockedBy(seen.adminGroupProblem());
        }
        if (wanted.slurmConf().isEmpty() || !wanted.slurmConf().equals(seen.slurmConf()) || !seen.slurmdActive()) {
            return Diff.of(
                    List.of(), "pam_slurm_adopt waits for slurmd to run with PrologFlags=Contain and proctrack/cgroup");
        }
        if (seen.module().isEmpty()) {
            return Diff.of(List.of(), "")
                    .blockedBy("pam_slurm_adopt.so is in none of " + String.join(", ", PamStep.MODULE_DIRS)
                            + ": install libpam-slurm-adopt (Debian) or slurm-pam_slurm (EPEL)");
        }
        if (seen.sshd().isEmpty()) {
            return Diff.of(List.of(), "").blockedBy("/etc/pam.d/sshd does not exist: install openssh-server first");
        }
        if (!seen.kept() && seen.ours()) {
            return Diff.of(List.of(), "")
                    .blockedBy(("/etc/pam.d/sshd already holds slurmlet's lines but the original kept in %s is "
                                    + "gone: put the distribution's sshd PAM file back (or remove the lines between '%s' and '%s'), and the next "
                                    + "pass keeps it")
                            .formatted(wanted.backup(), PamStep.BEGIN, PamStep.END));
        }
        List<PamAction> actions = new ArrayList<>();
        if (!seen.kept()) {
            actions.add(new KeepOriginal(wanted.backup()));
        }
        boolean access = !seen.access().equals(seen.wantedAccess());
        boolean sshd = !seen.sshd().equals(seen.wantedSshd());
        if (access || sshd) {
            actions.add(new Adopt(access, sshd, wanted.backup()));
        }
        return Diff.of(actions, "sshd admits users with a job here only");
    }

    sealed interface PamAction extends Action permits PutBack, KeepOriginal, Adopt {}

    record PutBack() implements PamAction {
        public String will() {
            return "put sshd's PAM stack back as it was before slurmlet";
        }

        public String did() {
            return "put back /etc/pam.d/sshd as it was before slurmlet";
        }
    }

    record KeepOriginal(String backup) implements PamAction {
        public String will() {
            return "keep the site's /etc/pam.d/sshd in " + backup;
        }

        public String did() {
            return "";
        }
    }

    /**
     * slurmlet's access rules for pam_access (root and the admin group in without a job) and sshd's
     * PAM file with pam_slurm_adopt, each written where it differs.
     */
    record Adopt(boolean access, boolean sshd, String backup) implements PamAction {
        public String will() {
            return sshd
                    ? "put pam_slurm_adopt into sshd's PAM stack once slurmd runs the new slurm.conf: users get in by ssh only while "
                            + "a job of theirs runs here"
                    : "write " + PamStep.ACCESS + ": root and the admin group get in by ssh without a job";
        }

        public String did() {
            List<String> did = new ArrayList<>();
            if (access) {
                did.add("wrote " + PamStep.ACCESS);
            }
            if (sshd) {
                did.add("put pam_slurm_adopt in /etc/pam.d/sshd (the original is kept in " + backup + ")");
            }
            return String.join("; ", did);
        }
    }
}
