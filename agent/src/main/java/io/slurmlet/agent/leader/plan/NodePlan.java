package io.slurmlet.agent.leader.plan;

import io.slurmlet.model.settings.Problem;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one machine must hold and run for the Slurm cluster: the desired state its agent's
 * reconcile steps make true. Made by the {@link Planner}, pure.
 *
 * @param node     the machine
 * @param roles    what it runs; empty: nothing of Slurm's (the agent leaves what was installed)
 * @param packages the packages it needs, in the names of its package manager
 * @param mungeKey the cluster's munge key, for any machine with a role
 * @param files    absolute path → content: Slurm's files, the same on every machine; empty until the
 *                 controller has reported its Slurm version, which they are written for
 * @param services the systemd units that must be enabled and running (slurmd is left out when its
 *                 version cannot talk to the controller's)
 * @param problems why this machine cannot take part as planned, each naming versions and fix
 */
public record NodePlan(String node, Set<Role> roles, List<String> packages, Optional<MungeKey> mungeKey,
                       Map<String, String> files, List<String> services, List<Problem> problems) {

    public NodePlan {
        roles = Set.copyOf(roles);
        packages = List.copyOf(packages);
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
        services = List.copyOf(services);
        problems = List.copyOf(problems);
    }

    public boolean runs(Role role) {
        return roles.contains(role);
    }
}
