package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.HostList;
import io.slurmlet.model.facts.NodeFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Machines that are alike share one line of slurm.conf or gres.conf, named by a host list:
 * {@code NodeName=gpu[001-128] NodeAddr=10.0.0.[1-128] CPUs=224 …} rather than 128 lines, so a
 * site of 10,000 machines of a few kinds sends every machine a few lines, not 10,000.
 *
 * <p>A line that names its nodes' addresses pairs the two host lists one by one, in their order
 * (Slurm's rule: as many addresses as names). So a line holds names of one prefix in rising order
 * (gpu007, gpu008, gpu012, …) whose addresses rise alongside (10.0.0.7, 10.0.0.8, 10.0.0.12, …);
 * a machine whose address falls back starts another line, and a line whose host lists would not
 * expand in that order is written one machine a line. Machines without addresses (Slurm resolves
 * their names) share one line whatever their names.
 */
final class NodeLines {

    /**
     * One line: its host list, its addresses' host list (empty: none), the attributes its machines
     * share, and its first machine.
     */
    record Line(String names, String addresses, List<Object> attributes, NodeFacts first) {}

    private NodeLines() {}

    /**
     * slurm.conf's NodeName lines for {@code nodes}: those with equal {@code attributes} together,
     * cut where their addresses stop running alongside their names. Lines come in the order of
     * each kind's first machine; the names of a line in Slurm's order.
     */
    static List<Line> group(List<NodeFacts> nodes, Function<NodeFacts, List<Object>> attributes) {
        Map<List<Object>, List<NodeFacts>> alike = alike(nodes, attributes);
        List<Line> lines = new ArrayList<>();
        alike.forEach((attrs, members) -> {
            List<NodeFacts> sorted = new ArrayList<>(members);
            sorted.sort((a, b) -> HostList.NATURAL_ORDER.compare(a.name(), b.name()));
            boolean addressed = sorted.stream().anyMatch(n -> !n.address().isEmpty());
            List<NodeFacts> run = new ArrayList<>();
            for (NodeFacts n : sorted) {
                if (!run.isEmpty() && addressed && !continues(run.get(run.size() - 1), n)) {
                    lines.addAll(lines(run, attrs));
                    run = new ArrayList<>();
                }
                run.add(n);
            }
            if (!run.isEmpty()) {
                lines.addAll(lines(run, attrs));
            }
        });
        return lines;
    }

    /** gres.conf's lines, which name no addresses: the machines of equal {@code key} on one line each. */
    static List<Line> groupNames(List<NodeFacts> nodes, Function<NodeFacts, ?> key) {
        List<Line> lines = new ArrayList<>();
        alike(nodes, key)
                .values()
                .forEach(members -> lines.add(new Line(
                        HostList.compress(members.stream().map(NodeFacts::name).toList()),
                        "",
                        List.of(),
                        members.get(0))));
        return lines;
    }

    /** {@code nodes} by {@code key}, in the order of each key's first machine. */
    private static <K> Map<K, List<NodeFacts>> alike(List<NodeFacts> nodes, Function<NodeFacts, K> key) {
        Map<K, List<NodeFacts>> alike = new LinkedHashMap<>();
        for (NodeFacts n : nodes) {
            alike.computeIfAbsent(key.apply(n), k -> new ArrayList<>()).add(n);
        }
        return alike;
    }

    /** The lines of {@code run}: one, or one a machine where a host list would not expand back in the run's order. */
    private static List<Line> lines(List<NodeFacts> run, List<Object> attrs) {
        List<String> names = run.stream().map(NodeFacts::name).toList();
        String hostList = HostList.compress(names);
        if (run.get(0).address().isEmpty()) {
            return List.of(new Line(hostList, "", attrs, run.get(0)));
        }
        List<String> addresses = run.stream().map(NodeFacts::address).toList();
        String addressList = HostList.compress(addresses);
        if (run.size() == 1
                || HostList.expand(hostList).equals(names)
                        && HostList.expand(addressList).equals(addresses)) {
            return List.of(new Line(hostList, addressList, attrs, run.get(0)));
        }
        return run.stream().map(n -> new Line(n.name(), n.address(), attrs, n)).toList();
    }

    /**
     * Whether {@code next} continues {@code last}'s line: its name later in a run of the same
     * prefix, and its address too (both without one also continues). An address Slurm's host lists
     * cannot read back as it was written (an IPv6 address's colons) is always a line of its own.
     */
    static boolean continues(NodeFacts last, NodeFacts next) {
        if (!HostList.rises(last.name(), next.name())) {
            return false;
        }
        if (last.address().isEmpty() && next.address().isEmpty()) {
            return true;
        }
        return !last.address().contains(":")
                && !next.address().contains(":")
                && HostList.rises(last.address(), next.address());
    }
}
