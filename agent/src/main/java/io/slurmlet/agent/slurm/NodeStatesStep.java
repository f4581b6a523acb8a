package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.NodeWish;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * On the controller: Slurm's node states as the lending phases want them. {@link NodeStatesDiff}
 * decides; this step reads slurmctld's node table and running jobs ({@code scontrol show node},
 * {@code squeue}) and makes each change with one {@code scontrol update}. The controller's agent
 * also runs it between passes (the reclaim watch, a lend), one at a time.
 */
public final class NodeStatesStep extends Reconciler<NodeStatesDiff.Wanted, List<SlurmNodeState>> implements Reports {

    static final Duration DEADLINE = Duration.ofSeconds(30);
    /** The reason a lent node shows where Slurm keeps the drain's reason after a resume (24.11). */
    static final String LENT = NodeStatesDiff.LENT;

    static final List<String> SHOW_NODES = List.of("scontrol", "-o", "show", "node");
    /** The jobs on nodes, by node, and those queued (pending), each with the partitions it was submitted to. */
    static final List<String> JOBS = List.of(
            "squeue",
            "-h",
            "-a",
            "-t",
            "RUNNING,COMPLETING,SUSPENDED,CONFIGURING,STOPPED,PENDING",
            "-o",
            "%i|%u|%N|%T|%P|%n|%x");

    private static final Pattern STATE = Pattern.compile("(?:^| )State=(\\S+)");
    private static final Pattern REASON = Pattern.compile("(?:^| )Reason=(.*?)(?= [A-Z][A-Za-z]*=|$)");
    private static final Pattern REASON_SUFFIX = Pattern.compile("\\s*\\[[^\\]]*@[^\\]]*\\]$");
    /** When a reason was set, from its suffix ({@code [root@2026-12-04T22:59:13]}). */
    private static final Pattern REASON_TIME =
            Pattern.compile("\\[[^\\]@]*@(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d)\\]$");

    private static final Pattern SLURMD_START =
            Pattern.compile("(?:^| )SlurmdStartTime=(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d)");
    /** slurmctld's own drain for a registration that reported fewer GPUs (or other GRES) than slurm.conf gives the node. */
    private static final Pattern GRES_LOW =
            Pattern.compile("gres/\\S+ count reported lower than configured \\(\\d+ < \\d+\\)");
    /** What such a drain, from before the slurmd that now runs, is shown as: slurmlet's, so the lending undoes it. */
    static final String GRES_LOW_BEFORE_RESTART =
            SlurmNodeState.OUR_PREFIX + " slurmctld drained it for a GRES count its slurmd "
                    + "reported before it was restarted with its new gres.conf: ";

    /** How long a slurmctld that is starting again (its restart, or its own re-exec on reconfigure from 23.11 on) is asked again. */
    static final Duration RESTARTING = Duration.ofSeconds(15);
    /** What scontrol and squeue print while slurmctld is not listening yet, or closed the connection as it re-executed itself. */
    private static final Pattern NOT_LISTENING = Pattern.compile(
            "Connection refused|Connection reset by peer|Unable to contact slurm controller|Socket timed out|Zero Bytes were transmitted");

    private final Commands commands;
    /** What the last look saw queued; null before it looked, or where this is not the controller. */
    private volatile List<QueuedJob> queued;

    public NodeStatesStep(Commands commands) {
        super("nodestates", NodeStatesDiff::desired, NodeStatesDiff::diff);
        this.commands = commands;
    }

    /** The jobs slurmctld held queued at the last look; null before it looked, or where this is not the controller. */
    public List<QueuedJob> queued() {
        return queued;
    }

    /** The states of {@link #JOBS} that hold nodes; any other it prints is a pending job's (with a flag: REQUEUE_HOLD and the like). */
    private static final Set<String> ON_NODES = Set.of("RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING", "STOPPED");

    /** Whether a line of {@link #JOBS}, split, is a job on nodes (a line without the state field is taken as one). */
    private static boolean onNodes(String[] f) {
        return f.length < 5 || ON_NODES.contains(f[3].strip());
    }

    /**
     * The queued jobs of {@link #JOBS}' lines ({@code id|user|nodes|state|partitions|asked|excluded}),
     * each with the partitions and the host lists it names, the lowest ids first, at most
     * {@link QueuedJob#REPORTED_AT_MOST}. An array job's pending tasks are one line ({@code 12_[3-9]}).
     * A line it cannot read is left out rather than have one user's job stop every node's lending.
     */
    static List<QueuedJob> queued(String squeue) {
        List<QueuedJob> jobs = new ArrayList<>();
        for (String line : squeue.split("\n")) {
            String[] f = line.strip().split("\\|", 7);
            if (onNodes(f) || !QueuedJob.ID.matcher(f[0].strip()).matches()) {
                continue;
            }
            String user = QueuedJob.NAME.matcher(f[1].strip()).matches() ? f[1].strip() : "?";
            List<String> partitions = Arrays.stream(f[4].strip().split(","))
                    .filter(p -> QueuedJob.NAME.matcher(p).matches())
                    .toList();
            List<String> named = new ArrayList<>();
            for (int i = 5; i < f.length; i++) {
                String hosts = f[i].strip();
                if (!hosts.isEmpty()
                        && !hosts.equals("(null)")
                        && QueuedJob.NAME.matcher(hosts).matches()) {
                    named.add(hosts);
                }
            }
            jobs.add(new QueuedJob(f[0].strip(), user, partitions, named));
        }
        jobs.sort(
                Comparator.comparingLong((QueuedJob j) -> Long.parseLong(j.id().split("[_+]", 2)[0]))
                        .thenComparing(QueuedJob::id));
        return List.copyOf(jobs.subList(0, Math.min(jobs.size(), QueuedJob.REPORTED_AT_MOST)));
    }

    /** Every node as slurmctld showed it at the last apply; empty where this is not the controller. */
    public List<SlurmNodeState> nodes() {
        return seen().orElse(List.of());
    }

    /** Run beside the passes too (the reclaim watch, a lend): on the newest plan only. */
    @Override
    public boolean newestPlanOnly() {
        return true;
    }

    /** One at a time: a pass and the poller (the reclaim watch, a lend) both run it. */
    @Override
    public synchronized Outcome apply(NodePlan plan) {
        return super.apply(plan);
    }

    /**
     * Whether Slurm's node states, as the last apply saw them, are what {@code plan} wants: every
     * node to resume idle or allocated without a stale reason of slurmlet's, every node to drain
     * drained with its reason. A node slurmctld does not know yet, that someone else drained, or
     * that is down or not responding (Slurm's own to bring back) is left out. False until it has
     * applied once.
     */
    public boolean asPlanned(NodePlan plan) {
        Map<String, SlurmNodeState> byName = new HashMap<>();
        nodes().forEach(s -> byName.put(s.name(), s));
        if (byName.isEmpty() && !plan.nodeStates().isEmpty()) {
            return false;
        }
        for (var wanted : plan.nodeStates().entrySet()) {
            SlurmNodeState s = byName.get(wanted.getKey());
            if (s == null
                    || s.drainedBySomeoneElse()
                    || s.state().contains("DOWN")
                    || s.state().contains("FAIL")
                    || s.state().contains("NOT_RESPONDING")) {
                continue;
            }
            boolean ok = wanted.getValue() instanceof NodeWish.Drain wish
                    ? s.drained() && s.reason().equals(wish.reason())
                    : !s.drained() && !NodeStatesDiff.staleReason(s);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Slurm 24.11 keeps the drain's reason of a node just resumed: that reason is replaced at once, not at the next pass. */
    @Override
    protected List<Action> then(NodeStatesDiff.Wanted wanted, List<SlurmNodeState> after, List<Action> did) {
        return NodeStatesDiff.afterResume(did, after);
    }

    @Override
    protected void act(NodeStatesDiff.Wanted wanted, Action action) throws SystemException {
        if (!(action instanceof NodeStatesDiff.Update u)) {
            throw new IllegalArgumentException("not a node-states action: " + action);
        }
        List<String> argv = new ArrayList<>(List.of("scontrol", "update", "nodename=" + HostList.compress(u.nodes())));
        argv.addAll(u.sets());
        commands.runChecked(argv, DEADLINE);
    }

    /**
     * What slurmctld answers to {@code argv}: a slurmctld starting again (this pass's restart or
     * reconfigure, an admin's restart) is asked again every half second for up to {@link #RESTARTING},
     * so a step does not fail, and health does not say so, for the second it takes; any other failure,
     * or one that lasts, fails the step with slurmctld's words.
     */
    private String askController(List<String> argv) throws SystemException {
        long until = System.nanoTime() + RESTARTING.toNanos();
        while (true) {
            try {
                return commands.runChecked(argv, DEADLINE).stdout();
            } catch (SystemException e) {
                if (!NOT_LISTENING.matcher(String.valueOf(e.getMessage())).find() || System.nanoTime() - until > 0) {
                    throw e;
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SystemException("interrupted while slurmctld was starting again", e);
            }
        }
    }

    /** Every node slurmctld knows, with its state, reason and jobs; nothing where this is not the controller. */
    @Override
    public List<SlurmNodeState> observe(NodeStatesDiff.Wanted wanted) throws SystemException {
        if (wanted.wishes().isEmpty()) {
            queued = null;
            return List.of();
        }
        String nodes = askController(SHOW_NODES);
        String squeue = askController(JOBS);
        queued = queued(squeue);
        Map<String, List<String>> jobs = new TreeMap<>();
        for (String line : squeue.split("\n")) {
            String[] f = line.strip().split("\\|", 7);
            if (f.length >= 3 && !f[2].isBlank() && onNodes(f)) {
                for (String node : HostList.expand(f[2].strip())) {
                    jobs.computeIfAbsent(node, n -> new ArrayList<>()).add(f[0] + " of " + f[1]);
                }
            }
        }
        Map<String, SlurmNodeState> states = new LinkedHashMap<>();
        for (String line : nodes.split("\n")) {
            if (!line.startsWith("NodeName=")) {
                continue;
            }
            String name = line.substring("NodeName=".length()).split(" ", 2)[0];
            Matcher state = STATE.matcher(line);
            Matcher reason = REASON.matcher(line);
            String said = reason.find() ? reason.group(1).strip() : "";
            String why = REASON_SUFFIX.matcher(said).replaceFirst("");
            String words = state.find() ? state.group(1) : "";
            if (gresDrainFromBeforeItsSlurmd(line, said, why, words)) {
                why = GRES_LOW_BEFORE_RESTART + why;
            }
            states.put(
                    name,
                    new SlurmNodeState(
                            name,
                            words,
                            why.equals("(null)") ? "" : why,
                            List.copyOf(new TreeSet<>(jobs.getOrDefault(name, List.of())))));
        }
        return List.copyOf(states.values());
    }

    /**
     * Whether a node's drain is slurmctld's own for a GRES count below slurm.conf's, set before the
     * slurmd that runs there now started, which has registered since without complaint (no INVAL):
     * the count came from a slurmd that still had the old gres.conf when the controller's
     * reconfigure made it register (GPUs added: slurm.conf and gres.conf change together, and the
     * node's agent restarts its slurmd a moment after the controller reconfigures). slurmctld keeps
     * such a drain after a good registration; an admin would have to resume a node slurmlet lent.
     * Not when the slurmd that runs reported the low count (a GPU really missing, a driver gone).
     */
    static boolean gresDrainFromBeforeItsSlurmd(String line, String said, String why, String state) {
        if (!GRES_LOW.matcher(why).matches()
                || state.contains("INVAL")) { // INVAL (22.05), INVALID_REG (later): its last registration
            return false;
        }
        Matcher set = REASON_TIME.matcher(said);
        Matcher started = SLURMD_START.matcher(line);
        // Both in slurmctld's own clock and format: the text's order is the times' order.
        return set.find() && started.find() && set.group(1).compareTo(started.group(1)) < 0;
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withQueued(queued());
    }
}
