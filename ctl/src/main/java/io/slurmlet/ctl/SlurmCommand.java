package io.slurmlet.ctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ctl slurm}: the Slurm cluster's settings, its lent nodes, its status and its nodes' lending. */
@Command(
        name = "slurm",
        mixinStandardHelpOptions = true,
        description = {
            "The Slurm cluster slurmlet runs beside the platform.",
            "Its settings, the nodes lent to it, its status, where each node is."
        },
        subcommands = {
            ShowCommand.class,
            SetCommand.class,
            LendCommand.class,
            UnlendCommand.class,
            ContainersCommand.class,
            StatusCommand.class,
            NodesCommand.class,
            JoinTokenCommand.class,
            MachinesCommand.class,
            MungeKeyCommand.class,
            AuthKeyCommand.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:refused or failed", "2:bad usage"})
public class SlurmCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(),
                "name what to do: show, set, lend, unlend, containers, status, nodes, join-token, machines, munge-key or auth-key");
    }
}
