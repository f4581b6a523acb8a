package io.slurmlet.agent.leader.plan;

import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.NodeWish;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.plan.UsersPlan;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The planner's sections of one machine's plan beside Slurm's files, each from the settings and the
 * machine's roles: its shared storage, containers, users, Slurm's node states (the controller's),
 * and which daemons run or retire. Pure, as the {@link Planner} is.
 */
public final class Sections {

    private Sections() {}

    /**
     * What {@code node} does for the shared storage: the site's export mounted ({@code shared.nfs}),
     * the server's exported to the machines slurm.conf names and mounted everywhere else
     * ({@code shared.server}), or only checked ({@code shared.path} alone); nothing without a role.
     *
     * @param machines who slurm.conf names, the controller first: the server's export goes to them
     */
    public static StoragePlan storage(SlurmSettings s, String node, Set<Role> roles, List<String> machines) {
        SharedStorage shared = s.shared();
        if (roles.isEmpty()
                || shared == null
                || shared.path() == null
                || shared.path().isEmpty()) {
            return StoragePlan.NONE;
        }
        String path = shared.path().replaceAll("/+$", "");
        if (shared.nfs() != null && !shared.nfs().isEmpty()) {
            return new StoragePlan.Mount(path, shared.nfs(), false);
        }
        String server = shared.server() == null ? "" : shared.server();
        if (server.isEmpty()) {
            return new StoragePlan.Check(path);
        }
        return server.equals(node)
                ? new StoragePlan.Export(path, machines)
                : new StoragePlan.Mount(path, server + ":" + path, true);
    }

    /**
     * What {@code node} installs for jobs in containers: enroot and pyxis on every Slurm machine where
     * the settings say containers, with the shared path bound into every container and, where its
     * facts show no GPU, none offered to containers. The artifacts are the leader's table's, which
     * {@link io.slurmlet.agent.leader.PlanPublisher} adds: the plan is pure of the leader's files.
     */
    static ContainersPlan containers(SlurmSettings s, Set<Role> roles, StoragePlan storage, NodeFacts facts) {
        if (roles.isEmpty() || !s.containers()) {
            return ContainersPlan.NONE;
        }
        String shared = storage instanceof StoragePlan.None ? "" : storage.path();
        return new ContainersPlan(true, List.of(), shared, facts.gpuCount() > 0);
    }

    /**
     * The Slurm machines that do not have pyxis for their own Slurm yet, each with what it lacks:
     * until none is left, plugstack.conf does not name pyxis (a machine without the plugin it names
     * fails every job). A note for each goes to {@code notes}, for status.
     */
    public static List<String> containersWaitFor(
            SlurmSettings s, Map<String, NodeFacts> inventory, List<String> notes) {
        Set<String> machines = new TreeSet<>(s.nodes());
        if (!s.controller().isEmpty()) {
            machines.add(s.controller());
        }
        List<String> waiting = new ArrayList<>();
        for (String machine : machines) {
            NodeFacts facts = inventory.get(machine);
            String lacks = facts == null
                    ? "no agent has joined from it"
                    : facts.containerTools().lacks(facts.slurmVersion(), facts.gpuCount() > 0);
            if (!lacks.isEmpty()) {
                waiting.add(machine + " (" + lacks + ")");
            }
        }
        if (!waiting.isEmpty()) {
            notes.add("containers: Slurm loads pyxis once every Slurm machine has it; waiting for "
                    + String.join(", ", waiting));
        }
        return waiting;
    }

    /** The cluster's accounts, kept as users where settings' users = "slurmlet" and the machine has a role, their homes on the shared storage if there is one. */
    static UsersPlan users(boolean keeps, SlurmSettings s, List<Account> accounts) {
        if (!keeps) {
            return UsersPlan.LEAVE;
        }
        return UsersPlan.keep(
                accounts,
                s.shared() == null || s.shared().path() == null
                        ? ""
                        : s.shared().path());
    }

    /**
     * For the controller: each Slurm node's state from its lending: resumed while lent, drained for a
     * reclaim while being taken back or leaving Slurm, drained as the platform's otherwise.
     */
    static Map<String, NodeWish> nodeStates(SlurmSettings s, Planner.Lent lending) {
        Map<String, NodeWish> states = new TreeMap<>();
        for (String n : s.nodes()) {
            states.put(
                    n,
                    lending.lent().contains(n) && !lending.leaving().contains(n)
                            ? NodeWish.RESUME
                            : lending.reclaiming().contains(n)
                                            || lending.leaving().contains(n)
                                    ? NodeWish.RECLAIM
                                    : NodeWish.PLATFORMS);
        }
        return states;
    }

    /**
     * The daemons of a role this machine does not have in a cluster that runs ({@code runs}: enabled,
     * its files rendered for the controller's Slurm): slurmctld where it is not the controller (the
     * controller moved away: a slurmctld left running would take the jobs its machine's users send and
     * launch them on nodes the new one manages), slurmd where it is no node (it left slurm.conf once its
     * reclaim ended, and would otherwise come back at every boot). None while the cluster does not run:
     * a disabled slurmlet leaves Slurm as it is.
     */
    static List<String> retired(SlurmSettings s, Set<Role> roles, boolean runs) {
        List<String> retired = new ArrayList<>();
        if (s.enabled() && runs) {
            if (!roles.contains(Role.CONTROLLER)) {
                retired.add("slurmctld");
            }
            if (!roles.contains(Role.COMPUTE)) {
                retired.add("slurmd");
            }
        }
        return retired;
    }

    /** munged wherever Slurm runs; slurmctld and slurmd once their files exist and their versions agree. */
    static List<String> services(Set<Role> roles, boolean munge, boolean slurmd, boolean slurmctld) {
        List<String> services = new ArrayList<>();
        if (roles.isEmpty()) {
            return services;
        }
        if (munge) {
            // Under auth=slurm munged is left as it is, running or not: no daemon of Slurm's needs it, and none watches
            // it.
            services.add("munge");
        }
        if (roles.contains(Role.CONTROLLER) && slurmctld) {
            services.add("slurmctld");
        }
        if (roles.contains(Role.COMPUTE) && slurmd) {
            services.add("slurmd");
        }
        return services;
    }
}
