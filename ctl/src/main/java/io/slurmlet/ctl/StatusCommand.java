package io.slurmlet.ctl;

import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.settings.Problem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import io.slurmlet.model.api.StepStatus;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Locale;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code ctl slurm status}: the cluster as the leader sees it, a row per node. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Shows the Slurm cluster as the leader sees it.", "Its controller; each node's roles, whether it is lent,", "and the last outcome of each reconcile step there, with the last error."})
public class StatusCommand implements Callable<Integer> {

    /** The agents' reconcile steps, in the order they run: a column each ("-": not reported yet). */
    static final List<String> STEPS = List.of("facts", "packages", "munge", "storage", "users", "slurm", "pam", "nodestates");

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<SlurmStatus> answer = leader.status();
            if (session.json()) {
                session.printJson(answer.body());
                return 0;
            }
            SlurmStatus s = answer.value();
            PrintWriter out = session.out();
            new Table()
                    .row("cluster", Table.shown(nullToEmpty(s.clusterName())))
                    .row("enabled", s.enabled() ? "yes" : "no")
                    .row("controller", Table.shown(nullToEmpty(s.controller())))
                    .row("partition", Table.shown(nullToEmpty(s.partition())))
                    .row("revision", Long.toString(s.revision()))
                    .print(out);
            out.println();
            List<SlurmStatus.NodeStatus> nodes = s.nodes() == null ? List.of() : s.nodes();
            if (nodes.isEmpty()) {
                out.println("no nodes: name them with 'ctl slurm set nodes=NODE,…' or 'ctl slurm set all_nodes=true'");
            } else {
                List<String> header = new ArrayList<>(List.of("NODE", "ROLES", "LENT", "SLURM"));
                STEPS.forEach(step -> header.add(step.toUpperCase(Locale.ROOT)));
                Table table = new Table(header.toArray(String[]::new));
                List<String> errors = new ArrayList<>();
                for (SlurmStatus.NodeStatus n : nodes) {
                    List<String> roles = n.roles() == null ? List.of() : n.roles();
                    String slurm = n.slurm() == null || n.slurm().isEmpty() ? "-" : n.slurm();
                    List<String> row = new ArrayList<>(List.of(n.name(), roles.isEmpty() ? "-" : String.join(",", roles),
                            n.lent() ? "yes" : "no", slurm));
                    for (String step : STEPS) {
                        StepStatus st = n.steps().stream().filter(x -> step.equals(x.step())).findFirst().orElse(null);
                        row.add(st == null ? "-" : st.failed() ? "FAILED" : "ok");
                        if (st != null && !st.lastError().isEmpty()) {
                            errors.add("  %s %s%s: %s (%s)".formatted(n.name(), step, st.failed() ? "" : ", since recovered",
                                    st.lastError(), st.lastErrorAt()));
                        }
                    }
                    table.row(row.toArray(String[]::new));
                }
                table.print(out);
                if (!errors.isEmpty()) {
                    out.println();
                    out.println("last errors:");
                    errors.forEach(out::println);
                }
            }
            List<Problem> problems = s.problems() == null ? List.of() : s.problems();
            if (!problems.isEmpty()) {
                out.println();
                out.println("problems:");
                problems.forEach(p -> out.println("  " + p.message()));
            }
            if (!s.notes().isEmpty()) {
                out.println();
                out.println("notes:");
                s.notes().forEach(n -> out.println("  " + n));
            }
            out.flush();
            return 0;
        }
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
