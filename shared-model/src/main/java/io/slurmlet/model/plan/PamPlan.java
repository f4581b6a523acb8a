package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Set;

/**
 * The planner's decision on sshd's PAM stack here, so that the PAM step reads nothing else (not the
 * settings, not slurm.conf).
 *
 * @param adopt whether pam_slurm_adopt is to be in sshd's stack (the cluster's accounts kept as users,
 *              on a compute node that is not the controller), once slurmd runs this plan's slurm.conf;
 *              false: slurmlet's line is taken out where it was put in
 */
public record PamPlan(@JsonProperty("adopt") boolean adopt) {

    public static final PamPlan ADOPT = new PamPlan(true);
    public static final PamPlan OFF = new PamPlan(false);

    /**
     * pam_slurm_adopt on a machine of {@code roles}: where users are kept, on a compute node that is
     * not the controller (users log in there to submit jobs, and into their jobs).
     */
    public static PamPlan of(Set<Role> roles, boolean keepsUsers) {
        return keepsUsers && roles.contains(Role.COMPUTE) && !roles.contains(Role.CONTROLLER) ? ADOPT : OFF;
    }
}
