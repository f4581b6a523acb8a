package io.slurmlet.model.observed;

import static io.slurmlet.model.observed.StorageSeen.digest;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the PAM step saw of sshd's PAM stack on a machine, files named by sha256 ("" for none).
 *
 * @param kept             whether slurmlet keeps the site's original /etc/pam.d/sshd (its own is in place)
 * @param sshd             /etc/pam.d/sshd now
 * @param ours             whether it holds slurmlet's lines
 * @param wantedSshd       what slurmlet would write there on this machine (from the original, the
 *                         module's path and the session lines it inlines); "" where it cannot
 * @param module           where pam_slurm_adopt.so is; "" where it is not installed
 * @param access           slurmlet's access file for pam_access now
 * @param wantedAccess     what it would hold (root and the agent's admin group)
 * @param slurmConf        the slurm.conf slurmd reads now
 * @param slurmdActive     whether slurmd runs
 * @param adminGroupProblem why the agent's admin group cannot be written into an access rule; "" when it can
 */
public record PamSeen(
        @JsonProperty("kept") boolean kept,
        @JsonProperty("sshd") String sshd,
        @JsonProperty("ours") boolean ours,
        @JsonProperty("wanted_sshd") String wantedSshd,
        @JsonProperty("module") String module,
        @JsonProperty("access") String access,
        @JsonProperty("wanted_access") String wantedAccess,
        @JsonProperty("slurm_conf") String slurmConf,
        @JsonProperty("slurmd_active") boolean slurmdActive,
        @JsonProperty("admin_group_problem") String adminGroupProblem) {

    public PamSeen {
        sshd = digest("sshd", sshd);
        wantedSshd = digest("wanted_sshd", wantedSshd);
        access = digest("access", access);
        wantedAccess = digest("wanted_access", wantedAccess);
        slurmConf = digest("slurm_conf", slurmConf);
        module = module == null ? "" : module;
        adminGroupProblem = adminGroupProblem == null ? "" : adminGroupProblem;
        if (!module.isEmpty() && !module.matches("(/[A-Za-z0-9._+-]+)+/pam_slurm_adopt\\.so")) {
            throw new IllegalArgumentException("pam: module is pam_slurm_adopt.so's path, not " + module);
        }
        if (!StorageSeen.printable(adminGroupProblem, 1024)) {
            throw new IllegalArgumentException("pam: admin_group_problem is one line of printable text");
        }
    }
}
