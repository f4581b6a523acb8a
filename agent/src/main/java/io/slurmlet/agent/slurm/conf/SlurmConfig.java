package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.AuthFloor;
import io.slurmlet.agent.slurm.HostList;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Slurm's files (slurm.conf, cgroup.conf, gres.conf, plugstack.conf) from the settings and the
 * nodes' facts, written for the controller's Slurm version. Pure: no I/O, and the same input
 * always gives the same bytes, so a re-render is never mistaken for a change.
 */
public final class SlurmConfig {

    /** Newest first: the first whose release the controller's version has reached writes the files. */
    private static final List<Slurm2205> GENERATORS = List.of(
            new Slurm2611(), new Slurm2511(), new Slurm2505(), new Slurm2411(), new Slurm2302(), new Slurm2205());

    /**
     * The newest release slurmlet is proven against on real daemons; a later one gets the files of
     * the newest generator (26.11's knows only what 26.11 removed), and a note.
     */
    static final SlurmVersion NEWEST_KNOWN = SlurmVersion.of(26, 5);

    private SlurmConfig() {}

    public static Rendered render(RenderInput in) {
        SlurmVersion version = in.controllerVersion();
        Slurm2205 generator = GENERATORS.stream()
                .filter(g -> version.compareTo(g.since()) >= 0)
                .findFirst()
                .orElse(null);
        if (generator == null) {
            Slurm2205 oldest = GENERATORS.get(GENERATORS.size() - 1);
            return new Rendered(
                    "",
                    Map.of(),
                    List.of(new Problem(
                            "controller",
                            version.toString(),
                            ("the controller %s runs Slurm %s, older than %s, the oldest release slurmlet writes for: "
                                            + "upgrade Slurm on it to %s or later")
                                    .formatted(in.settings().controller(), version, oldest.name(), oldest.name()))),
                    List.of());
        }
        List<String> notes = new ArrayList<>();
        if (version.compareTo(SlurmVersion.of(NEWEST_KNOWN.year(), NEWEST_KNOWN.month() + 1)) >= 0) {
            notes.add(
                    ("the controller runs Slurm %s, newer than %s, the newest release slurmlet is proven against: its files "
                                    + "are written as for %s; a newer slurmlet may know more")
                            .formatted(version, NEWEST_KNOWN.release(), generator.name()));
        }
        notes.addAll(generator.notes(in.settings(), version));
        List<Problem> problems = new ArrayList<>(generator.unsupported(in.settings(), version));
        // No file the controller's own Slurm would refuse is written: the machines keep the files they have.
        problems.addAll(KnownKeys.unknown(
                in.settings().slurmConf(), version, in.settings().controller()));
        NodeFacts controller = in.facts().get(in.settings().controller());
        if (controller != null) {
            problems.addAll(PluginNames.missing(in.settings().slurmConf(), controller, version));
            if (in.settings().slurmAuth()) {
                // No slurm.conf with auth/slurm ever reaches a slurmctld that cannot load it.
                AuthFloor.problem(in.settings().controller(), controller).ifPresent(problems::add);
            }
        }
        if (!problems.isEmpty()) {
            return new Rendered(generator.name(), Map.of(), problems, notes);
        }
        List<NodeFacts> nodes = new ArrayList<>();
        List<String> waiting = new ArrayList<>();
        for (String name : slurmdNodes(in)) {
            NodeFacts facts = in.facts().get(name);
            if (facts == null) {
                waiting.add(name);
            } else {
                nodes.add(facts);
            }
        }
        if (!waiting.isEmpty()) {
            notes.add("not in Slurm until their agents report their machines: " + HostList.compress(waiting));
        }
        Set<String> machines = new LinkedHashSet<>();
        machines.add(in.settings().controller());
        nodes.forEach(n -> machines.add(n.name()));
        MemoryClasses classes = MemoryClasses.of(in.settings(), nodes, in.memoryClasses());
        classes.note().ifPresent(notes::add);
        return new Rendered(
                generator.name(),
                generator.files(in, nodes, classes),
                List.of(),
                notes,
                List.copyOf(machines),
                classes.partitions().keySet());
    }

    /** The nodes that run slurmd, in Slurm's order: named ones, and with all_nodes every node with facts. */
    private static List<String> slurmdNodes(RenderInput in) {
        SlurmSettings s = in.settings().withNodes(List.copyOf(in.facts().keySet()));
        Set<String> names = new LinkedHashSet<>(s.nodes());
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(HostList.NATURAL_ORDER);
        return sorted;
    }
}
