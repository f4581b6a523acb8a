package io.slurmlet.ctl;

import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.settings.Problem;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code ctl slurm status}: the cluster as the leader sees it, a row per node. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Shows the Slurm cluster as the leader sees it.",
            "Its controller; each node's roles, whether it is lent,",
            "and the last outcome of each reconcile step there, with the last error."
        })
public class StatusCommand implements Callable<Integer> {

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
                    .row(
                            "revision",
                            s.plannedFrom() > 0 && s.plannedFrom() < s.revision()
                                    ? "%d (the machines' plans are still those of %d: the leader is planning)"
                                            .formatted(s.revision(), s.plannedFrom())
                                    : Long.toString(s.revision()))
                    .print(out);
            out.println();
            List<SlurmStatus.NodeStatus> nodes = s.nodes() == null ? List.of() : s.nodes();
            if (nodes.isEmpty()) {
                out.println("no nodes: name them with 'ctl slurm set nodes=NODE,…' or 'ctl slurm set all_nodes=true'");
            } else {
                List<String> steps = steps(nodes);
                List<String> header = new ArrayList<>(List.of("NODE", "ROLES", "LENT", "SLURM", "PLAN"));
                steps.forEach(step -> header.add(step.toUpperCase(Locale.ROOT)));
                Table table = new Table(header.toArray(String[]::new));
                List<String> errors = new ArrayList<>();
                for (SlurmStatus.NodeStatus n : nodes) {
                    List<String> roles = n.roles() == null ? List.of() : n.roles();
                    String slurm = n.slurm() == null || n.slurm().isEmpty() ? "-" : n.slurm();
                    List<String> row = new ArrayList<>(List.of(
                            n.name(),
                            roles.isEmpty() ? "-" : String.join(",", roles),
                            n.lent() ? "yes" : "no",
                            slurm,
                            plan(n)));
                    for (String step : steps) {
                        StepStatus st = n.steps().stream()
                                .filter(x -> step.equals(x.step()))
                                .findFirst()
                                .orElse(null);
                        row.add(st == null ? "-" : st.failed() ? "FAILED" : "ok");
                        if (st != null && !st.lastError().isEmpty()) {
                            errors.add("  %s %s%s: %s (%s)"
                                    .formatted(
                                            n.name(),
                                            step,
                                            st.failed() ? "" : ", since recovered",
                                            st.lastError(),
                                            st.lastErrorAt()));
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
                problems.forEach(p -> out.println("  " + p.shown()));
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

    /**
     * Whether the machine's agent applied the plan the leader holds for it: its revision, or "applying"
     * while it has not; "-" where the leader holds none (or is older than that column).
     */
    static String plan(SlurmStatus.NodeStatus n) {
        if (n.planPublished() <= 0) {
            return "-";
        }
        return n.planRevision() >= n.planPublished()
                ? Long.toString(n.planPublished())
                : "applying " + n.planPublished() + (n.planRevision() > 0 ? " (has " + n.planRevision() + ")" : "");
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /**
     * The steps the agents report, a column each, in the order they run (as the reports list them;
     * "-" where a machine has not reported one yet): the agents' own list, not a copy of it here.
     */
    static List<String> steps(List<SlurmStatus.NodeStatus> nodes) {
        List<String> steps = new ArrayList<>();
        for (SlurmStatus.NodeStatus n : nodes) {
            int after = -1;
            for (StepStatus st : n.steps() == null ? List.<StepStatus>of() : n.steps()) {
                int at = steps.indexOf(st.step());
                if (at < 0) {
                    at = after + 1;
                    steps.add(at, st.step());
                }
                after = at;
            }
        }
        return List.copyOf(steps);
    }
}
