package io.slurmlet.ctl;

import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.NodeLending.Transition;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code --wait} does for {@code lend} and {@code unlend}: reads the nodes' lending before the
 * change is stored (the transitions already there are not printed), then after it asks the leader
 * again and again, prints each new transition of the nodes named, and ends when all are in the
 * phase asked ({@code lent}, or {@code platform}) with the settings wishing it, or at the timeout
 * with what keeps each node that is not there. Transitions are told apart by what they are, not by
 * ctl's clock or their count: the leader keeps only the latest.
 */
final class LendingWait {

    private final Leader leader;
    private final List<String> nodes;
    private final boolean lend;
    private final Duration timeout;
    private final Duration interval;
    /** By node (lower case): the transitions printed or there before. */
    private final Map<String, Set<Transition>> seen = new HashMap<>();

    private LendingWait(Leader leader, List<String> nodes, boolean lend, Duration timeout, Duration interval) {
        this.leader = leader;
        this.nodes = nodes;
        this.lend = lend;
        this.timeout = timeout;
        this.interval = interval;
    }

    /** Reads the nodes' lending as it is before the change, so that a leader without it fails before anything is stored. */
    static LendingWait before(Leader leader, List<String> nodes, boolean lend, Duration timeout, Duration interval) {
        LendingWait w = new LendingWait(leader, nodes, lend, timeout, interval);
        List<NodeLending> now;
        try {
            now = leader.nodes().value();
        } catch (CtlException e) {
            throw new CtlException(
                    "nothing was changed: --wait cannot follow the nodes: " + e.getMessage(),
                    e.details(),
                    e.responseBody(),
                    e);
        }
        now.forEach(n -> w.seen(n.name()).addAll(n.transitions()));
        return w;
    }

    /**
     * Follows the nodes until all are there or the time is up.
     *
     * @param progress where transitions and the end go (stdout, or stderr with {@code -o json})
     * @param err      where what keeps the nodes goes at the timeout
     * @return 0 when all are there, 1 at the timeout
     */
    int follow(PrintWriter progress, PrintWriter err) {
        String target = lend ? "lent" : "platform";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<String, NodeLending> now = poll();
            for (String asked : nodes) {
                NodeLending n = now.get(key(asked));
                if (n == null) {
                    continue;
                }
                for (Transition t : n.transitions()) {
                    if (seen(n.name()).add(t)) {
                        progress.println("%s: %s → %s%s at %s"
                                .formatted(
                                        n.name(),
                                        t.from(),
                                        t.to(),
                                        t.why() == null || t.why().isEmpty() ? "" : " (" + t.why() + ")",
                                        NodesCommand.at(t.at())));
                    }
                }
            }
            progress.flush();
            List<String> notThere =
                    nodes.stream().filter(a -> !there(now.get(key(a)), target)).toList();
            if (notThere.isEmpty()) {
                progress.println("now %s: %s".formatted(NodesCommand.inWords(target), String.join(", ", nodes)));
                progress.flush();
                return 0;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                for (String asked : notThere) {
                    err.println(inTheWay(asked, now.get(key(asked))));
                }
                err.println(
                        "gave up after %s (--timeout): the change is stored and the leader goes on with it; follow it with 'ctl slurm nodes'"
                                .formatted(Durations.shown(timeout)));
                err.flush();
                return 1;
            }
            sleep(Math.min(interval.toNanos(), left));
        }
    }

    private boolean there(NodeLending n, String target) {
        return n != null && target.equals(n.phase()) && n.wished() == lend;
    }

    /** "gpu1 is still reclaiming: job 1234 of alice still running" */
    private static String inTheWay(String asked, NodeLending n) {
        if (n == null) {
            return asked + " is not among the leader's nodes";
        }
        String why = !n.waitingFor().isEmpty() ? n.waitingFor() : n.lastError();
        return "%s is still %s%s".formatted(n.name(), NodesCommand.inWords(n.phase()), why.isEmpty() ? "" : ": " + why);
    }

    private Map<String, NodeLending> poll() {
        List<NodeLending> now;
        try {
            now = leader.nodes().value();
        } catch (CtlException e) {
            throw new CtlException(
                    "the change is stored, but ctl lost the leader while waiting: " + e.getMessage(),
                    e.details(),
                    e.responseBody(),
                    e);
        }
        Map<String, NodeLending> byName = new HashMap<>();
        now.forEach(n -> byName.put(key(n.name()), n));
        return byName;
    }

    private Set<Transition> seen(String node) {
        return seen.computeIfAbsent(key(node), k -> new HashSet<>());
    }

    /** Host names ignore case. */
    private static String key(String node) {
        return node == null ? "" : node.toLowerCase(Locale.ROOT);
    }

    private static void sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CtlException("interrupted while waiting for the nodes; the change is stored");
        }
    }
}
