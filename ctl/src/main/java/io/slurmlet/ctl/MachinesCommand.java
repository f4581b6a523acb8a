package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.model.text.Text;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl slurm machines}: the machines that have joined and those removed; removing one, and allowing a removed name again. */
@Command(
        name = "machines",
        mixinStandardHelpOptions = true,
        description = {
            "The machines that have joined the leader, and those removed.",
            "A name that has joined cannot join again until its machine is removed here, and a name removed",
            "is refused until an admin allows it again (a reinstalled machine, or one that is gone)."
        },
        subcommands = {MachinesCommand.ListMachines.class, MachinesCommand.Remove.class, MachinesCommand.Allow.class},
        footerHeading = "%nExamples:%n",
        footer = {"  ctl slurm machines list", "  ctl slurm machines remove node7", "  ctl slurm machines allow node7"})
public class MachinesCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name what to do: list, remove or allow");
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = {
                "Shows the machines that have joined, a name a line, and apart the machines removed,",
                "whose names are refused until allowed again."
            })
    static class ListMachines implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return Session.of(spec).answer(Leader::machines, (out, value) -> {
                if (value.path("machines").isEmpty()) {
                    out.println("no machine has joined: 'ctl slurm join-token' prints the line that joins one");
                }
                value.path("machines").forEach(m -> out.println(m.asText()));
                JsonNode removed = value.path("removed");
                if (removed.isEmpty()) {
                    return;
                }
                out.println();
                out.println(
                        "removed, their names refused until an admin allows them again (ctl slurm machines allow NODE):");
                Table table = new Table("NODE", "REMOVED", "BY", "JOIN TOKEN REVOKED");
                for (JsonNode r : removed) {
                    String token = r.path("join_token").asText();
                    table.row(
                            r.path("node").asText(),
                            r.path("removed").asText(),
                            r.path("by").asText(),
                            token.isEmpty() ? "none" : token);
                }
                table.print(out);
            });
        }
    }

    @Command(
            name = "remove",
            mixinStandardHelpOptions = true,
            description = {
                "Removes a machine: its name is refused from then on, until an admin allows it again;",
                "its credential is revoked (its agent is refused from its next call), and so is the join token",
                "it joined with (the other machines that joined with that token keep their credentials);",
                "its facts are forgotten. Refused while it runs jobs.",
                "The munge key it held is still the cluster's: if the machine is not trusted, roll a new one to every machine with ctl slurm munge-key rotate."
            })
    static class Remove implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "NODE", description = "The machine's name, as it joined.")
        String node;

        @Override
        public Integer call() {
            return Session.of(spec)
                    .answer(
                            leader -> leader.removeMachine(node),
                            (out, value) -> printNotes(
                                    out,
                                    value,
                                    // A leader older than removals says no notes: its removal frees the name at once.
                                    "removed %s: its credential revoked, its facts forgotten; it can join again with a join token"
                                            .formatted(node)));
        }
    }

    @Command(
            name = "allow",
            mixinStandardHelpOptions = true,
            description = {
                "Lets a removed machine's name join again, with a join token:",
                "the machine reinstalled, or another one given its name."
            })
    static class Allow implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "NODE", description = "The name removed, as 'ctl slurm machines list' shows it.")
        String node;

        @Override
        public Integer call() {
            return Session.of(spec)
                    .answer(
                            leader -> leader.allowMachine(node),
                            (out, value) -> printNotes(
                                    out, value, "allowed %s: it may join again with a join token".formatted(node)));
        }
    }

    /** The leader's notes on what it did, a line each; {@code otherwise} where it said none. */
    static void printNotes(PrintWriter out, JsonNode answer, String otherwise) {
        if (answer.path("notes").isEmpty()) {
            out.println(otherwise);
        }
        answer.path("notes").forEach(note -> out.println(Text.oneLine(note.asText())));
    }
}
