package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.slurm.FileWrites.FilesWritten;
import io.slurmlet.model.plan.ManagedFile;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.SlurmAuthKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The slurm step's pure half: Slurm's files as the plan has them, and what slurmctld and slurmd
 * are to do for them (start, restart, or take them from the controller's {@code scontrol
 * reconfigure}), from what the machine holds ({@link Seen}): {@link SlurmStep} acts on these
 * actions, and a preview shows the same ones. Nothing is ever stopped but the daemons of a role the
 * machine no longer has. {@link #diff} composes its parts: {@link Retiring}, {@link FileWrites},
 * {@link DaemonActions} (by {@link RestartRules}) and {@link RestartDropIn}.
 */
public final class SlurmDiff {

    static final String SLURM_CONF = "/etc/slurm/slurm.conf";
    static final String GRES_CONF = "/etc/slurm/gres.conf";
    static final String CGROUP_CONF = "/etc/slurm/cgroup.conf";
    /**
     * Slurm's own authentication keys under auth=slurm: the SlurmUser's, 0600 (slurmctld runs as
     * SlurmUser, and Slurm refuses the file with any bit for others; system-tests/slurm/FINDINGS.md).
     */
    public static final String JWKS = "/etc/slurm/slurm.jwks";

    /** Where Slurm reads its SPANK plugins from, slurmd and every command alike. */
    public static final String PLUGSTACK = "/etc/slurm/plugstack.conf";

    /** The units this step starts and restarts; munge is the munge step's. */
    static final Set<String> DAEMONS = Set.of("slurmctld", "slurmd");

    private SlurmDiff() {}

    /**
     * What a plan wants of Slurm's files and daemons here.
     *
     * @param role     whether the machine has a Slurm role
     * @param files    Slurm's files; empty until the controller's version is known
     * @param services the plan's units, in the order they are acted on
     * @param controls whether this is the controller (which issues the reconfigure)
     * @param node     the machine's name as Slurm's node (its restarts of slurmd wait for its jobs' launches)
     * @param retired  the daemons of a role the machine no longer has: stopped and disabled once no job needs them
     * @param keysGeneration the generation of the plan's slurm.jwks (among {@code files}); 0 without one
     */
    public record Wanted(
            boolean role,
            List<ManagedFile> files,
            List<String> services,
            boolean controls,
            String node,
            List<String> retired,
            long keysGeneration) {

        public Wanted {
            retired = List.copyOf(retired);
        }

        /** No slurm.jwks. */
        public Wanted(
                boolean role,
                List<ManagedFile> files,
                List<String> services,
                boolean controls,
                String node,
                List<String> retired) {
            this(role, files, services, controls, node, retired, 0);
        }

        /** Nothing retired, on an unnamed machine: the step's value before its first look, and tests'. */
        public Wanted(boolean role, List<ManagedFile> files, List<String> services, boolean controls) {
            this(role, files, services, controls, "", List.of());
        }

        Map<String, String> contents() {
            Map<String, String> c = new LinkedHashMap<>();
            files.forEach(f -> c.put(f.path(), f.content()));
            return c;
        }

        List<String> daemons() {
            return services.stream().filter(DAEMONS::contains).toList();
        }
    }

    public static Wanted desired(NodePlan plan) {
        List<ManagedFile> files = plan.slurm().files();
        boolean controls = plan.runs(Role.CONTROLLER);
        Optional<ManagedFile> name = FileWrites.clusterName(plan);
        if (controls && name.isPresent()) {
            files = new ArrayList<>(files);
            files.add(name.get());
        }
        // Written with slurm.conf, in the same pass and before any restart: auth/slurm without its keys is fatal
        // to a daemon's start.
        Optional<SlurmAuthKeys> keys = files.isEmpty() ? Optional.empty() : plan.slurmKeys();
        if (keys.isPresent()) {
            files = new ArrayList<>(files);
            files.add(new ManagedFile(JWKS, keys.get().jwks().text(), "0600", "slurm", "slurm", true));
        }
        return new Wanted(
                !plan.roles().isEmpty(),
                files,
                plan.slurm().services(),
                controls,
                plan.node(),
                plan.slurm().retired(),
                keys.map(SlurmAuthKeys::generation).orElse(0L));
    }

    /**
     * A file as it is on the machine.
     *
     * @param content its text
     */
    public record FileNow(String content, String mode, String owner, String group) {

        boolean holds(ManagedFile f) {
            return content.equals(f.content())
                    && mode.equals(f.permissions())
                    && owner.equals(f.owner())
                    && group.equals(f.group());
        }

        @Override
        public String toString() {
            return "FileNow[" + mode + " " + owner + ":" + group + "]";
        }
    }

    /**
     * What the machine holds of Slurm's files and daemons.
     *
     * @param files   each of the plan's files that exists, by path
     * @param running the plan's daemons that run
     * @param enabled the plan's daemons that are enabled
     * @param owed    what the owed file says is still owed, by unit and action
     * @param owedStale whether the owed file says more than that (done, or unreadable): written again
     * @param partitionJobs on the controller, the jobs slurmctld has (pending or running) in each
     *                  partition the plan's slurm.conf would drop; a partition whose jobs could not
     *                  be asked for has the error instead
     * @param leftovers each retired daemon that runs or is enabled here from slurmlet's files, with what
     *                  still needs it: the jobs an old slurmctld holds in its queue, or those running on
     *                  this machine for an old slurmd (or why they cannot be known); none: it can go
     * @param missingPlugins the plugins the wanted plugstack.conf requires that this machine does not have
     * @param dropIns   each of the plan's daemons' {@link RestartDropIn#path}, by unit, as it is where it exists
     * @param keysLoaded each running daemon's generation of slurm.jwks its process loaded, where known ({@link JwksJournal})
     */
    public record Seen(
            Map<String, FileNow> files,
            Set<String> running,
            Set<String> enabled,
            Map<String, Owed> owed,
            boolean owedStale,
            Map<String, List<String>> partitionJobs,
            Map<String, List<String>> leftovers,
            Set<String> missingPlugins,
            Map<String, FileNow> dropIns,
            Map<String, Long> keysLoaded) {
        public Seen(
                Map<String, FileNow> files,
                Set<String> running,
                Set<String> enabled,
                Map<String, Owed> owed,
                boolean owedStale,
                Map<String, List<String>> partitionJobs,
                Map<String, List<String>> leftovers,
                Set<String> missingPlugins,
                Map<String, FileNow> dropIns) {
            this(files, running, enabled, owed, owedStale, partitionJobs, leftovers, missingPlugins, dropIns, Map.of());
        }

        public Seen {
            keysLoaded = Map.copyOf(keysLoaded);
            missingPlugins = Set.copyOf(missingPlugins);
            dropIns = Map.copyOf(dropIns);
            files = Map.copyOf(files);
            running = Set.copyOf(running);
            enabled = Set.copyOf(enabled);
            owed = Collections.unmodifiableMap(new LinkedHashMap<>(owed));
            partitionJobs = Collections.unmodifiableMap(new TreeMap<>(partitionJobs));
            leftovers = Collections.unmodifiableMap(new TreeMap<>(leftovers));
        }

        public Seen(
                Map<String, FileNow> files,
                Set<String> running,
                Set<String> enabled,
                Map<String, Owed> owed,
                boolean owedStale,
                Map<String, List<String>> partitionJobs) {
            this(files, running, enabled, owed, owedStale, partitionJobs, Map.of());
        }

        public Seen(
                Map<String, FileNow> files,
                Set<String> running,
                Set<String> enabled,
                Map<String, Owed> owed,
                boolean owedStale,
                Map<String, List<String>> partitionJobs,
                Map<String, List<String>> leftovers) {
            this(files, running, enabled, owed, owedStale, partitionJobs, leftovers, Set.of(), Map.of());
        }
    }

    /**
     * The daemons this machine no longer needs stopped first (while they hold jobs, what they need
     * waits), the owed restarts recorded (before the files), the files, the daemons' invocations
     * noted, the restart drop-ins, then each daemon started or restarted in the plan's order, then
     * the controller's reconfigure.
     */
    public static Diff diff(Wanted plan, Seen seen) {
        Retiring retiring = Retiring.of(plan, seen);
        Optional<Diff> filesWait = filesWait(plan, seen, retiring);
        if (filesWait.isPresent()) {
            return filesWait.get();
        }
        FileWrites files = FileWrites.of(plan, seen);
        Wanted wanted = files.wanted();
        DaemonActions daemons = DaemonActions.of(wanted, seen, files.written());
        List<SlurmAction> a = new ArrayList<>(retiring.actions());
        daemons.record(seen).ifPresent(a::add);
        files.write().ifPresent(a::add);
        daemons.noteInvocations().ifPresent(a::add);
        files.write().ifPresent(w -> a.add(new FilesWritten()));
        RestartDropIn.diff(wanted, seen).ifPresent(a::add);
        a.addAll(daemons.daemons(wanted, seen));
        List<String> held = new ArrayList<>(files.held());
        held.addAll(retiring.kept());
        if (files.write().isEmpty()) {
            held.addAll(keysNotLoaded(wanted, seen));
        }
        Diff diff = Diff.of(a, "Slurm's files match and its daemons run");
        return held.isEmpty() ? diff : diff.waitingFor(held);
    }

    /**
     * Each running daemon of the plan that has not loaded the plan's slurm.jwks yet, where its file
     * here holds it: waited for (the step looks again in seconds), since the leader moves a rotation
     * of the keys on only once every daemon loaded them. A daemon re-executes on the controller's
     * reconfigure and on slurmd's reread; one that does not was refused its new file (its journal says
     * why), and runs on with its old keys.
     */
    static List<String> keysNotLoaded(Wanted wanted, Seen seen) {
        long generation = wanted.keysGeneration();
        if (generation == 0) {
            return List.of();
        }
        List<String> waiting = new ArrayList<>();
        for (String unit : wanted.daemons()) {
            Long loaded = seen.keysLoaded().get(unit);
            if (seen.running().contains(unit) && loaded != null && loaded != generation) {
                waiting.add(("%s has not loaded slurm.jwks generation %d yet (it runs with generation %d's keys until "
                                + "it re-executes; journalctl -u %s says why a reconfigure failed)")
                        .formatted(unit, generation, loaded, unit));
            }
        }
        return waiting;
    }

    /**
     * Where Slurm's files and daemons are left as they are this pass, the diff: no files in the plan
     * yet (or no role), an old slurmctld here that still holds jobs, or a plugin the plan's
     * plugstack.conf requires that this machine lacks. Only the retiring part's actions are done.
     */
    private static Optional<Diff> filesWait(Wanted plan, Seen seen, Retiring retiring) {
        if (plan.files().isEmpty() || retiring.oldControllerKept()) {
            // An old slurmctld that still holds jobs keeps this machine's files as they are: squeue here asks it, and
            // no other, only while slurm.conf still names this machine the controller.
            Diff left = Diff.of(
                    retiring.actions(),
                    plan.files().isEmpty()
                            ? (plan.role()
                                    ? "Slurm's files wait for the controller's Slurm version"
                                    : "no Slurm role here")
                            : "Slurm's files wait for the old slurmctld here to stop");
            return Optional.of(retiring.kept().isEmpty() ? left : left.waitingFor(retiring.kept()));
        }
        if (!seen.missingPlugins().isEmpty()) {
            // A plan made from facts older than the machine (a reimaged one, one whose pyxis was removed): with that
            // plugstack.conf slurmd would not start and every job here would fail. The files stay as they are until the
            // plugin is here (the containers step builds it) or the leader, told by this machine's facts, leaves it
            // out.
            List<String> kept = new ArrayList<>(retiring.kept());
            kept.add(
                    ("Slurm's files and daemons here wait: plugstack.conf is to require %s, which this machine does not have "
                                    + "as its Slurm loads it (slurmd would not start with it, and every job here would fail); they follow once it "
                                    + "is here or the leader's plan leaves it out")
                            .formatted(String.join(", ", new TreeSet<>(seen.missingPlugins()))));
            return Optional.of(Diff.of(retiring.actions(), "Slurm's files wait for a plugin plugstack.conf requires")
                    .waitingFor(kept));
        }
        return Optional.empty();
    }
}
