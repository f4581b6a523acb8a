package io.slurmlet.agent.leader.plan;

import io.slurmlet.agent.slurm.AuthFloor;
import io.slurmlet.agent.slurm.SavedState;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.slurm.VersionSkew;
import io.slurmlet.agent.slurm.conf.Layout;
import io.slurmlet.agent.slurm.conf.RenderInput;
import io.slurmlet.agent.slurm.conf.Rendered;
import io.slurmlet.agent.slurm.conf.SlurmConfig;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PamPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.SlurmAuthKeys;
import io.slurmlet.model.plan.SlurmJwks;
import io.slurmlet.model.plan.SlurmPlan;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The leader's planner: settings × what every agent reported → one plan per machine. Pure: the
 * same input gives equal plans, so an unchanged plan is never sent again. Here: the machines'
 * roles, Slurm's files and whether its daemons may run; each other section of a machine's plan
 * comes from {@link Sections}, its packages from {@link PackagesPlanning}.
 */
public final class Planner {

    /** Where Slurm's files go on every machine (Debian's and EPEL's packages read them there). */
    public static final String SLURM_DIR = "/etc/slurm/";

    private Planner() {}

    /**
     * Every machine's plan, and what keeps the cluster from running as the settings say.
     *
     * @param memoryClasses the memory classes slurm.conf has partitions for (MiB per CPU): the leader
     *                      keeps them before it publishes the plans, for every later plan to keep
     */
    public record Plans(
            Map<String, NodePlan> nodes, List<Problem> problems, List<String> notes, Set<Long> memoryClasses) {
        public Plans {
            nodes = Collections.unmodifiableMap(new TreeMap<>(nodes));
            problems = List.copyOf(problems);
            notes = List.copyOf(notes);
            memoryClasses = Collections.unmodifiableSortedSet(new TreeSet<>(memoryClasses));
        }

        public Plans(Map<String, NodePlan> nodes, List<Problem> problems, List<String> notes) {
            this(nodes, problems, notes, Set.of());
        }
    }

    /**
     * @param settings  the cluster's settings
     * @param inventory every machine with an agent, by name, with its facts
     * @param mungeKey  the cluster's munge key
     */
    public static Plans plan(SlurmSettings settings, Map<String, NodeFacts> inventory, MungeKey mungeKey) {
        return plan(settings, inventory, Optional.of(mungeKey), Optional.empty(), Lent.asWished(settings), List.of());
    }

    /**
     * @param lent where each node is in its lending, and which nodes slurmctld has a record of
     */
    public static Plans plan(SlurmSettings settings, Map<String, NodeFacts> inventory, MungeKey mungeKey, Lent lent) {
        return plan(settings, inventory, Optional.of(mungeKey), Optional.empty(), lent, List.of());
    }

    /** @param accounts the cluster's accounts, made Linux users on every Slurm machine with users = "slurmlet" */
    public static Plans plan(
            SlurmSettings settings,
            Map<String, NodeFacts> inventory,
            MungeKey mungeKey,
            Lent lent,
            List<Account> accounts) {
        return plan(settings, inventory, Optional.of(mungeKey), Optional.empty(), lent, accounts);
    }

    /**
     * The plans the leader sends: each Slurm machine's with the cluster's munge key under auth=munge,
     * or with Slurm's own keys ({@code slurmKeys}) under auth=slurm, never both.
     */
    public static Plans plan(
            SlurmSettings settings,
            Map<String, NodeFacts> inventory,
            MungeKey mungeKey,
            SlurmAuthKeys slurmKeys,
            Lent lent,
            List<Account> accounts) {
        return plan(settings, inventory, Optional.of(mungeKey), Optional.of(slurmKeys), lent, accounts);
    }

    /**
     * Under auth=slurm, what the plans of a review carry in place of Slurm's keys: a list of one key
     * of its own, made in this process, never sent, never written. A review's plans hold no key of
     * the cluster's (what status and a dry run show are made from them), and still name slurm.jwks,
     * so that a dry run of a switch to auth=slurm says it is written.
     */
    public static final SlurmAuthKeys STAND_IN_KEYS = new SlurmAuthKeys(1, SlurmJwks.first("stand-in"));

    /** The plans without the cluster's keys: what status shows of them (problems, notes), never sent to a machine. */
    public static Plans review(SlurmSettings settings, Map<String, NodeFacts> inventory) {
        return review(settings, inventory, Lent.asWished(settings), List.of());
    }

    /** The plans of {@code settings} with lending as it is now: what the write path's checks compare. */
    public static Plans review(SlurmSettings settings, Map<String, NodeFacts> inventory, Lent lending) {
        return review(settings, inventory, lending, List.of());
    }

    /** The same, with the cluster's accounts: what a dry run compares with what the machines hold. */
    public static Plans review(
            SlurmSettings settings, Map<String, NodeFacts> inventory, Lent lending, List<Account> accounts) {
        return plan(settings, inventory, Optional.empty(), Optional.of(STAND_IN_KEYS), lending, accounts);
    }

    /**
     * What the planner needs of lending.
     *
     * @param lent  the nodes in phase lent: resumed in Slurm
     * @param reclaiming the nodes being reclaimed: drained with the reclaiming reason
     * @param knownToSlurm the nodes slurmctld has a record of: their drain is kept at run time
     *                  only, so slurm.conf carries no State= for them (a State= line is applied
     *                  again at every reconfigure and would replace an admin's drain reason)
     * @param leaving   the nodes the settings take out of Slurm (out of {@code nodes}, {@code all_nodes}
     *                  off, slurmlet disabled) whose lending is still under way: they stay Slurm's,
     *                  drained, with their slurmd, mounts and PAM, until their reclaim has ended
     *                  (their last job done, the release hook run); only then does slurm.conf lose
     *                  them. Taking a node out of slurm.conf under a job loses the job.
     * @param memoryClasses the memory classes (MiB per CPU) slurm.conf had partitions for: kept in
     *                  every later slurm.conf, since removing a partition fails every job that names it
     */
    public record Lent(
            Set<String> lent,
            Set<String> reclaiming,
            Set<String> knownToSlurm,
            Set<String> leaving,
            Set<Long> memoryClasses) {
        public Lent {
            lent = Set.copyOf(lent);
            reclaiming = Set.copyOf(reclaiming);
            knownToSlurm = Set.copyOf(knownToSlurm);
            leaving = Set.copyOf(leaving);
            memoryClasses = Set.copyOf(memoryClasses);
        }

        public Lent(Set<String> lent, Set<String> reclaiming, Set<String> knownToSlurm, Set<String> leaving) {
            this(lent, reclaiming, knownToSlurm, leaving, Set.of());
        }

        public Lent(Set<String> lent, Set<String> reclaiming, Set<String> knownToSlurm) {
            this(lent, reclaiming, knownToSlurm, Set.of());
        }

        /** Lending as the settings wish it, with no node known to slurmctld yet: what a preview assumes. */
        public static Lent asWished(SlurmSettings settings) {
            return new Lent(settings.lentNodes(), Set.of(), Set.of());
        }

        /**
         * Lending as the settings wish it, with the nodes slurmctld has a record of ({@code known}),
         * and those whose lending is under way ({@code underWay}: lending, lent or being reclaimed)
         * kept in Slurm where the settings take them out: what a change's checks and its preview plan with.
         */
        public static Lent asWished(
                SlurmSettings settings, Set<String> underWay, Set<String> known, Map<String, NodeFacts> inventory) {
            return asWished(settings, underWay, known, inventory, Set.of());
        }

        /** The same, with the memory classes slurm.conf had partitions for ({@code classes}), which stay. */
        public static Lent asWished(
                SlurmSettings settings,
                Set<String> underWay,
                Set<String> known,
                Map<String, NodeFacts> inventory,
                Set<Long> classes) {
            return new Lent(
                    settings.lentNodes(),
                    Set.of(),
                    known,
                    Planner.leaving(settings, underWay, known, inventory),
                    classes);
        }
    }

    /**
     * The nodes of {@code underWay} (lending, lent, being reclaimed) that the settings no longer
     * run slurmd on and slurmctld has a record of ({@code known}): kept in Slurm until their
     * reclaim ends. A node slurmctld never had can have no job, and one whose agent left the
     * inventory no slurmd. None when no Slurm can run at all (disabled settings that name no
     * controller, or one without an agent): nothing is left to keep.
     */
    public static Set<String> leaving(
            SlurmSettings settings, Set<String> underWay, Set<String> known, Map<String, NodeFacts> inventory) {
        if (underWay.isEmpty()) {
            return Set.of();
        }
        SlurmSettings named = settings.withNodes(List.copyOf(new TreeMap<>(inventory).keySet()));
        Set<String> leaving = new TreeSet<>(underWay);
        if (named.enabled()) {
            leaving.removeAll(new HashSet<>(named.nodes())); // a list's contains for each would be quadratic
        } else if (named.controller().isEmpty()
                || !inventory.containsKey(named.controller())
                || !named.withEnabled(true).check().isEmpty()) {
            return Set.of();
        }
        leaving.retainAll(inventory.keySet());
        leaving.retainAll(known);
        return leaving;
    }

    /**
     * The settings as Slurm runs them while {@code leaving} nodes are reclaimed: those nodes still
     * among the nodes (drained, lent to nobody); with slurmlet disabled, Slurm kept running, nothing
     * lent, until the last has left. The settings themselves when none is leaving.
     */
    public static SlurmSettings inSlurm(SlurmSettings settings, Set<String> leaving) {
        if (leaving.isEmpty()) {
            return settings;
        }
        SlurmSettings s =
                settings.enabled() ? settings : settings.withEnabled(true).withLent(List.of());
        List<String> nodes = new ArrayList<>(s.nodes());
        Set<String> named = new HashSet<>(nodes);
        new TreeSet<>(leaving).stream().filter(n -> !named.contains(n)).forEach(nodes::add);
        return s.withNodeList(nodes);
    }

    private static Plans plan(
            SlurmSettings settings,
            Map<String, NodeFacts> inventory,
            Optional<MungeKey> mungeKey,
            Optional<SlurmAuthKeys> slurmKeys,
            Lent lending,
            List<Account> accounts) {
        SlurmSettings s =
                inSlurm(settings, lending.leaving()).withNodes(List.copyOf(new TreeMap<>(inventory).keySet()));
        List<Problem> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Map<String, String> files = Map.of();
        List<String> machines = List.of();
        Optional<SlurmVersion> controllerVersion = Optional.empty();
        Set<Long> memoryClasses = lending.memoryClasses();

        for (String node : new TreeSet<>(lending.leaving())) {
            notes.add(
                    ("%s leaves Slurm once its reclaim has ended (its last job done, the release hook run): until then it "
                                    + "stays in slurm.conf, drained, with its slurmd and mounts")
                            .formatted(node));
        }
        if (s.enabled()) {
            NodeFacts controller = inventory.get(s.controller());
            if (controller == null) {
                notes.add("the controller %s has no agent yet: install slurmlet-agent there and join it"
                        .formatted(s.controller()));
            } else {
                controllerVersion = SlurmVersion.parse(controller.slurmVersion());
                if (controllerVersion.isEmpty()) {
                    notes.add(
                            "Slurm's files wait for the controller %s to report its Slurm version (its packages step installs Slurm)"
                                    .formatted(s.controller()));
                }
            }
            if (controllerVersion.isPresent()) {
                // slurm.conf drains (State=DRAIN) only nodes slurmctld has no record of and that are not lent:
                // the rest are drained and resumed at run time, so lending never rewrites slurm.conf.
                List<String> renderedLent = s.nodes().stream()
                        .filter(n -> lending.lent().contains(n)
                                || lending.knownToSlurm().contains(n))
                        .toList();
                boolean pyxis = s.containers()
                        && Sections.containersWaitFor(s, inventory, notes).isEmpty();
                Rendered rendered = SlurmConfig.render(new RenderInput(
                        s.withLent(renderedLent),
                        inventory,
                        controllerVersion.get(),
                        Layout.DEBIAN,
                        lending.memoryClasses(),
                        pyxis));
                problems.addAll(rendered.problems());
                notes.addAll(rendered.notes());
                Map<String, String> paths = new LinkedHashMap<>();
                rendered.files().forEach((name, text) -> paths.put(SLURM_DIR + name, text));
                files = paths;
                machines = rendered.machines();
                if (rendered.ok()) {
                    memoryClasses = rendered.memoryClasses();
                }
            }
        }

        Set<String> slurmd = Set.copyOf(s.nodes());
        Map<String, NodePlan> plans = new LinkedHashMap<>();
        for (var entry : new TreeMap<>(inventory).entrySet()) {
            String name = entry.getKey();
            NodeFacts facts = entry.getValue();
            Set<Role> roles = EnumSet.noneOf(Role.class);
            if (s.enabled() && name.equals(s.controller())) {
                roles.add(Role.CONTROLLER);
            }
            if (s.enabled() && slurmd.contains(name)) {
                roles.add(Role.COMPUTE);
            }
            List<Problem> nodeProblems = new ArrayList<>();
            boolean slurmdMayRun = true;
            boolean slurmctldMayRun = true;
            if (roles.contains(Role.CONTROLLER) && controllerVersion.isPresent()) {
                Optional<String> unreadable = SavedState.cannotStart(
                        controllerVersion.get(),
                        facts.slurmctldState(),
                        Layout.DEBIAN.stateSaveLocation() + " on " + name);
                if (unreadable.isPresent()) {
                    nodeProblems.add(new Problem("controller", name, unreadable.get()));
                    slurmctldMayRun = false;
                } else {
                    // Said before an upgrade of the machine's packages makes it so.
                    SlurmVersion.parse(facts.slurmctldCandidate())
                            .flatMap(next -> SavedState.beforeUpgradeTo(
                                    next, facts.slurmctldState(), Layout.DEBIAN.stateSaveLocation() + " on " + name))
                            .map(why -> name + ": " + why)
                            .ifPresent(notes::add);
                }
            }
            if (roles.contains(Role.COMPUTE) && controllerVersion.isPresent()) {
                Optional<SlurmVersion> own = SlurmVersion.parse(facts.slurmVersion());
                if (own.isPresent()) {
                    Optional<String> skew =
                            VersionSkew.problem(name, own.get(), s.controller(), controllerVersion.get());
                    if (skew.isPresent()) {
                        nodeProblems.add(new Problem("nodes", name, skew.get()));
                        slurmdMayRun = false;
                    }
                }
                if (s.slurmAuth() && slurmdMayRun) {
                    // As for a skew: it keeps its line in slurm.conf (DOWN to slurmctld), and blocks no one's files.
                    Optional<Problem> floor = AuthFloor.problem(name, facts);
                    if (floor.isPresent()) {
                        nodeProblems.add(floor.get());
                        slurmdMayRun = false;
                    }
                }
            }
            boolean keepsUsers = !roles.isEmpty() && SlurmSettings.USERS_SLURMLET.equals(s.users());
            StoragePlan storage = Sections.storage(s, name, roles, machines);
            PamPlan pam = PamPlan.of(roles, keepsUsers);
            List<String> retired = Sections.retired(s, roles, !files.isEmpty());
            ContainersPlan containers = Sections.containers(s, roles, storage, facts);
            plans.put(
                    name,
                    NodePlan.of(name, roles)
                            .withPackages(PackagesPlanning.packages(roles, facts.os(), storage, pam, containers))
                            .withMungeKey(roles.isEmpty() || s.slurmAuth() ? Optional.empty() : mungeKey)
                            .withSlurmKeys(
                                    roles.isEmpty() || !s.slurmAuth() || files.isEmpty() ? Optional.empty() : slurmKeys)
                            .withStorage(storage)
                            .withUsers(Sections.users(keepsUsers, s, accounts))
                            .withSlurm(
                                    roles.isEmpty()
                                            ? SlurmPlan.retiring(retired)
                                            : new SlurmPlan(
                                                    SlurmPlan.configs(files),
                                                    Sections.services(
                                                            roles,
                                                            !s.slurmAuth(),
                                                            slurmdMayRun && !files.isEmpty(),
                                                            slurmctldMayRun && !files.isEmpty()),
                                                    retired))
                            .withPam(pam)
                            .withContainers(containers)
                            .withNodeStates(
                                    roles.contains(Role.CONTROLLER) && !files.isEmpty()
                                            ? Sections.nodeStates(s, lending)
                                            : Map.of())
                            .withProblems(nodeProblems)
                            .madeFrom(facts));
            problems.addAll(nodeProblems);
        }
        return new Plans(plans, problems, notes, memoryClasses);
    }
}
