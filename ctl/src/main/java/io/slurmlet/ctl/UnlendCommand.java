package io.slurmlet.ctl;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl slurm unlend NODE…}: takes nodes out of {@code lent}, all in one write. */
@Command(
        name = "unlend",
        mixinStandardHelpOptions = true,
        description = {
            "Takes nodes back from Slurm, all in one write.",
            "Each is drained in Slurm and given back to the platform when its last job ends. A node not lent is left as it is."
        })
public class UnlendCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "NODE", description = "A node lent to Slurm.")
    List<String> nodes;

    @Option(names = "--dry-run", description = "Shows what each machine would do, and stores nothing.")
    boolean dryRun;

    @Mixin
    WaitOptions wait;

    @Override
    public Integer call() {
        wait.check(spec, dryRun);
        return LentNodes.change(Session.of(spec), nodes, false, dryRun, wait);
    }
}
