package io.slurmlet.ctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code ctl slurm machines}: the machines that have joined, and removing one. */
@Command(name = "machines", mixinStandardHelpOptions = true,
        description = {"The machines that have joined the leader.",
                "A name that has joined cannot join again until its machine is removed here:",
                "that revokes its credential and forgets its facts (a reinstalled machine, or one that is gone)."},
        subcommands = {MachinesCommand.ListMachines.class, MachinesCommand.Remove.class},
        footerHeading = "%nExamples:%n",
        footer = {"  ctl slurm machines list", "  ctl slurm machines remove node7"})
public class MachinesCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name what to do: list or remove");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"Shows the machines that have joined, a name a line."})
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
            });
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = {"Removes a machine: its credential is revoked (its agent is refused from its next call)",
                    "and its facts forgotten, so that the name can join again. Refused while it runs jobs."})
    static class Remove implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "NODE", description = "The machine's name, as it joined.")
        String node;

        @Override
        public Integer call() {
            return Session.of(spec).answer(leader -> leader.removeMachine(node), (out, value) -> out.println(
                    "removed %s: its credential revoked, its facts forgotten; it can join again with a join token".formatted(node)));
        }
    }
}
