package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.NodeWish;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * On the controller: Slurm's node states as the lending phases want them. A lent node is resumed,
 * but only where slurmlet's own drain (a reason starting {@code slurmlet:}) holds it; a node drained
 * by an admin or a health check is never resumed, and its reason is never replaced. Other nodes
 * are drained with slurmlet's reason; a drain lets running jobs finish, it kills none. Nodes that
 * change together change in one {@code scontrol update} (a host list), not one call a node.
 *
 * <p>A drained node that runs no job is handed back with {@code state=idle}, which slurmctld
 * schedules at once (measured on 22.05: 35-40 ms to a job, against 1.5-2 s for {@code resume});
 * one that still runs jobs (a reclaim taken back) with {@code state=resume}, which keeps them.
 *
 * <p>Slurm 24.11 keeps a drained node's reason after either (22.05 and 26.05 clear it): an idle,
 * lent node would go on showing {@code slurmlet: not lent}. Where a resumed node still shows a
 * drain reason of slurmlet's, that reason is replaced by {@link #LENT} (system-tests/slurm/FINDINGS.md).
 */
public final class NodeStatesStep implements Step {

    static final Duration DEADLINE = Duration.ofSeconds(30);
    /** The reason a lent node shows where Slurm keeps the drain's reason after a resume (24.11). */
    static final String LENT = "slurmlet: lent";
    static final List<String> SHOW_NODES = List.of("scontrol", "-o", "show", "node");
    static final List<String> JOBS = List.of("squeue", "-h", "-a", "-t", "RUNNING,COMPLETING,SUSPENDED,CONFIGURING,STOPPED",
            "-o", "%i|%u|%N");
    private static final Pattern STATE = Pattern.compile("(?:^| )State=(\\S+)");
    private static final Pattern REASON = Pattern.compile("(?:^| )Reason=(.*?)(?= [A-Z][A-Za-z]*=|$)");
    private static final Pattern REASON_SUFFIX = Pattern.compile("\\s*\\[[^\\]]*@[^\\]]*\\]$");

    private final Commands commands;
    private volatile List<SlurmNodeState> seen = List.of();

    public NodeStatesStep(Commands commands) {
        this.commands = commands;
    }

    @Override
    public String name() {
        return "nodestates";
    }

    /** Every node as slurmctld showed it at the last apply; empty where this is not the controller. */
    public List<SlurmNodeState> seen() {
        return seen;
    }

    /** Run beside the passes too (the reclaim watch, a lend): on the newest plan only. */
    @Override
    public boolean newestPlanOnly() {
        return true;
    }

    /** One at a time: a pass and the poller (the reclaim watch, a lend) both run it. */
    @Override
    public synchronized Outcome apply(NodePlan plan) {
        if (plan.nodeStates().isEmpty()) {
            seen = List.of();
            return Outcome.unchanged(name(), "not the controller: no Slurm node states to keep here");
        }
        try {
            Map<String, SlurmNodeState> now = observe();
            List<String> idle = new ArrayList<>();
            List<String> resume = new ArrayList<>();
            Map<String, List<String>> drain = new TreeMap<>();
            List<String> others = new ArrayList<>();
            List<String> stale = new ArrayList<>();
            for (var wanted : plan.nodeStates().entrySet()) {
                SlurmNodeState s = now.get(wanted.getKey());
                if (s == null) {
                    continue; // not in slurmctld's node table yet: its slurm.conf line brings it, drained
                }
                if (s.drainedBySomeoneElse()) {
                    others.add("%s (\"%s\")".formatted(s.name(), s.reason()));
                } else if (wanted.getValue() instanceof NodeWish.Resume) {
                    if (s.drained()) {
                        (s.jobs().isEmpty() && s.state().startsWith("IDLE") ? idle : resume).add(s.name());
                    } else if (staleReason(s)) {
                        stale.add(s.name());
                    }
                } else if (wanted.getValue() instanceof NodeWish.Drain wish) {
                    String reason = wish.reason();
                    if (!s.drained() || !s.reason().equals(reason)) {
                        drain.computeIfAbsent(reason, r -> new ArrayList<>()).add(s.name());
                    }
                }
            }
            List<String> done = new ArrayList<>();
            if (!idle.isEmpty()) {
                update(idle, "state=idle");
                done.add("resumed " + HostList.compress(idle));
            }
            if (!resume.isEmpty()) {
                update(resume, "state=resume");
                done.add("resumed " + HostList.compress(resume) + " (jobs kept)");
            }
            for (var d : drain.entrySet()) {
                update(d.getValue(), "state=drain", "reason=" + d.getKey());
                done.add("drained %s (%s)".formatted(HostList.compress(d.getValue()), d.getKey()));
            }
            if (!done.isEmpty()) {
                now = observe();
                for (String node : Stream.concat(idle.stream(), resume.stream()).toList()) {
                    SlurmNodeState after = now.get(node);
                    if (after != null && staleReason(after)) {
                        stale.add(node);
                    }
                }
            }
            if (!stale.isEmpty()) {
                update(stale, "reason=" + LENT);
                done.add("%s: the drain's reason, which this Slurm keeps after a resume, replaced by \"%s\""
                        .formatted(HostList.compress(stale), LENT));
                now = observe();
            }
            seen = List.copyOf(now.values());
            String left = others.isEmpty() ? "" : "; left drained by someone else: " + String.join(", ", others);
            return done.isEmpty()
                    ? Outcome.unchanged(name(), "every node's Slurm state as planned" + left)
                    : Outcome.changed(name(), String.join("; ", done) + left);
        } catch (SystemException e) {
            return Outcome.failed(name(), e.getMessage());
        }
    }

    /**
     * Whether Slurm's node states, as the last apply saw them, are what {@code plan} wants: every
     * node to resume idle or allocated without a stale reason of slurmlet's, every node to drain
     * drained with its reason. A node slurmctld does not know yet, that someone else drained, or
     * that is down or not responding (Slurm's own to bring back) is left out. False until it has
     * applied once.
     */
    public boolean asPlanned(NodePlan plan) {
        Map<String, SlurmNodeState> byName = new java.util.HashMap<>();
        seen.forEach(s -> byName.put(s.name(), s));
        if (byName.isEmpty() && !plan.nodeStates().isEmpty()) {
            return false;
        }
        for (var wanted : plan.nodeStates().entrySet()) {
            SlurmNodeState s = byName.get(wanted.getKey());
            if (s == null || s.drainedBySomeoneElse() || s.state().contains("DOWN") || s.state().contains("FAIL")
                    || s.state().contains("NOT_RESPONDING")) {
                continue;
            }
            boolean ok = wanted.getValue() instanceof NodeWish.Drain wish ? s.drained() && s.reason().equals(wish.reason())
                    : !s.drained() && !staleReason(s);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Not drained, yet still showing a drain reason of slurmlet's other than {@link #LENT}. */
    private static boolean staleReason(SlurmNodeState s) {
        return !s.drained() && s.reason().startsWith(SlurmNodeState.OUR_PREFIX) && !s.reason().equals(LENT)
                && !s.state().contains("DOWN") && !s.state().contains("FAIL");
    }

    private void update(List<String> nodes, String... what) throws SystemException {
        List<String> argv = new ArrayList<>(List.of("scontrol", "update", "nodename=" + HostList.compress(nodes)));
        argv.addAll(List.of(what));
        commands.runChecked(argv, DEADLINE);
    }

    /** Every node slurmctld knows, with its state, reason and jobs. */
    Map<String, SlurmNodeState> observe() throws SystemException {
        String nodes = commands.runChecked(SHOW_NODES, DEADLINE).stdout();
        Map<String, List<String>> jobs = new TreeMap<>();
        for (String line : commands.runChecked(JOBS, DEADLINE).stdout().split("\n")) {
            String[] f = line.strip().split("\\|", 3);
            if (f.length == 3 && !f[2].isBlank()) {
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
            String why = reason.find() ? REASON_SUFFIX.matcher(reason.group(1).strip()).replaceFirst("") : "";
            states.put(name, new SlurmNodeState(name, state.find() ? state.group(1) : "", why.equals("(null)") ? "" : why,
                    List.copyOf(new TreeSet<>(jobs.getOrDefault(name, List.of())))));
        }
        return states;
    }
}
