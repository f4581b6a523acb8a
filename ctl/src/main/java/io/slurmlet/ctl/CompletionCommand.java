package io.slurmlet.ctl;

import java.io.PrintWriter;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code ctl completion}: a bash completion script for ctl. */
@Command(
        name = "completion",
        mixinStandardHelpOptions = true,
        description = {
            "Prints a bash completion script for ctl.",
            "Load it in this shell with: source <(ctl completion)",
            "or for every shell: ctl completion > /etc/bash_completion.d/ctl"
        })
public class CompletionCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        out.print(AutoComplete.bash("ctl", spec.root().commandLine()));
        out.flush();
    }
}
