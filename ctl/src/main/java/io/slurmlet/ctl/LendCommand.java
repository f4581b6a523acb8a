package io.slurmlet.ctl;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl slurm lend NODE…}: adds nodes to {@code lent}, all in one write. */
@Command(
        name = "lend",
        mixinStandardHelpOptions = true,
        description = {
            "Lends nodes to Slurm, all in one write.",
            "Each is drained of the platform's work, then resumed in Slurm. A node already lent is left as it is."
        })
public class LendCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "NODE", description = "A node of the Slurm cluster (one of its nodes).")
    List<String> nodes;

    @Option(names = "--dry-run", description = "Shows what each machine would do, and stores nothing.")
    boolean dryRun;

    @Mixin
    WaitOptions wait;

    @Override
    public Integer call() {
        wait.check(spec, dryRun);
        return LentNodes.change(Session.of(spec), nodes, true, dryRun, wait);
    }
}
