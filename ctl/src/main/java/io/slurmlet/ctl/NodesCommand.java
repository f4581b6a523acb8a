package io.slurmlet.ctl;

import io.slurmlet.model.api.NodeLending;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code ctl slurm nodes}: where each node is between the platform and Slurm, a row per node. */
@Command(
        name = "nodes",
        mixinStandardHelpOptions = true,
        description = {
            "Shows where each node is between the platform and Slurm:",
            "its phase (platform, lending, lent, reclaiming), whether the settings lend it,",
            "its state and jobs in Slurm, since when, what it waits for; then last errors."
        })
public class NodesCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<List<NodeLending>> answer = leader.nodes();
            if (session.json()) {
                session.printJson(answer.body());
            } else {
                print(session.out(), answer.value());
            }
            return 0;
        }
    }

    static void print(PrintWriter out, List<NodeLending> nodes) {
        if (nodes.isEmpty()) {
            out.println("no nodes: name them with 'ctl slurm set nodes=NODE,…' or 'ctl slurm set all_nodes=true'");
            out.flush();
            return;
        }
        Table table = new Table("NODE", "PHASE", "LENT", "SLURM", "JOBS", "SINCE", "WAITING FOR");
        for (NodeLending n : nodes) {
            table.row(
                    n.name(),
                    dash(n.phase()),
                    n.wished() ? "yes" : "no",
                    n.slurm() == null || n.slurm().state().isEmpty()
                            ? "-"
                            : n.slurm().state(),
                    n.slurm() == null ? "-" : Integer.toString(n.slurm().jobs().size()),
                    dash(at(n.since())),
                    dash(n.waitingFor()));
        }
        table.print(out);
        List<NodeLending> failed =
                nodes.stream().filter(n -> !n.lastError().isEmpty()).toList();
        if (!failed.isEmpty()) {
            out.println();
            out.println("last errors:");
            failed.forEach(n -> out.println("  %s: %s%s"
                    .formatted(
                            n.name(),
                            n.lastError(),
                            n.lastErrorAt().isEmpty() ? "" : " (" + at(n.lastErrorAt()) + ")")));
        }
        out.flush();
    }

    /** A time the leader sent, to the second ({@code 2026-11-30T04:00:01Z}); as sent when it is not ISO-8601. */
    static String at(String iso) {
        if (iso == null || iso.isEmpty()) {
            return "";
        }
        try {
            return Instant.parse(iso).truncatedTo(ChronoUnit.SECONDS).toString();
        } catch (DateTimeParseException e) {
            return iso;
        }
    }

    /** A phase in a sentence: "gpu1 is still {@code on the platform}". */
    static String inWords(String phase) {
        return "platform".equals(phase) ? "on the platform" : phase;
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }
}
