package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.model.text.Text;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ctl slurm munge-key}: which machines hold the cluster's munge key, and rolling a new one to all of them. */
@Command(
        name = "munge-key",
        mixinStandardHelpOptions = true,
        description = {
            "The cluster's munge key, which every Slurm machine shares: which machines hold it, and a new one.",
            "The key itself is never shown."
        },
        subcommands = {MungeKeyCommand.Status.class, MungeKeyCommand.Rotate.class},
        footerHeading = "%nExamples:%n",
        footer = {"  ctl slurm munge-key rotate", "  ctl slurm munge-key status"})
public class MungeKeyCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name what to do: status or rotate");
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = {
                "Shows the key's rotation (0: the cluster's first key), when machines switch to it,",
                "and for each machine with a Slurm role whether it holds it."
            })
    static class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return Session.of(spec).answer(Leader::mungeKey, MungeKeyCommand::print);
        }
    }

    @Command(
            name = "rotate",
            mixinStandardHelpOptions = true,
            description = {
                "Makes a new munge key and rolls it to every machine with a Slurm role: the leader stores it, then",
                "every machine writes it and restarts munged at one moment the leader picks 10 s out, so that",
                "machines disagree for as short a time as possible (slurmctld, slurmd and jobs keep running).",
                "A step launched within about a second of that moment may still be refused",
                "(srun: Protocol authentication error). A machine that is down then takes the key when it is",
                "back; until it does, Slurm refuses its messages (a batch job ending there is requeued on",
                "24.11 and later, or ends late on 22.05), and",
                "after SlurmdTimeout it is set DOWN: bring it back, or remove it, soon.",
                "While jobs run it is refused, unless --under-jobs: a batch job that ends within a fraction of a",
                "second of the moment can have its end refused by slurmctld: Slurm 24.11 and later then",
                "requeue it; 22.05 sends the end again and the job ends up to 15 s late.",
                "Use it after removing a machine that is not trusted (ctl slurm machines remove)."
            })
    static class Rotate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(
                names = "--under-jobs",
                description = {
                    "Rotate while jobs run, taking the risk that a batch job ending at the",
                    "moment of the switch is requeued by Slurm (24.11 and later) or ends late (22.05)."
                })
        boolean underJobs;

        @Override
        public Integer call() {
            return Session.of(spec).answer(leader -> leader.rotateMungeKey(underJobs), (out, value) -> {
                value.path("notes").forEach(note -> out.println(Text.oneLine(note.asText())));
                out.println();
                print(out, value);
            });
        }
    }

    /** The key's rotation and a table of the machines, as status prints them. */
    static void print(PrintWriter out, JsonNode value) {
        long rotation = value.path("rotation").asLong();
        if (rotation == 0) {
            out.println("the cluster's first munge key (never rotated)");
        } else {
            out.println("rotation %d, asked at %s by %s; machines switch at %s"
                    .formatted(
                            rotation,
                            Text.oneLine(value.path("requested").asText()),
                            Text.oneLine(value.path("by").asText()),
                            Text.oneLine(value.path("switch_at").asText())));
        }
        JsonNode machines = value.path("machines");
        if (machines.isEmpty()) {
            out.println("no machine has a Slurm role yet");
            return;
        }
        Table table = new Table("NODE", "HOLDS IT", "STATE", "CLOCK");
        int holding = 0;
        for (JsonNode m : machines) {
            boolean holds = m.path("holds").asBoolean();
            holding += holds ? 1 : 0;
            table.row(
                    Text.oneLine(m.path("node").asText()),
                    holds ? "yes" : "no",
                    Text.oneLine(m.path("state").asText()),
                    // A leader older than the clock's measure does not say it.
                    m.hasNonNull("clock") ? Text.oneLine(m.path("clock").asText()) : "-");
        }
        table.print(out);
        out.println("%d of %d machines hold it".formatted(holding, machines.size()));
    }
}
