package io.slurmlet.ctl;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * The options every command that talks to the leader takes: how to print ({@code -o}, {@code -e})
 * and where the leader is ({@code --leader}, {@code --token-file}).
 */
public class CommonOptions {

    /** How to print an answer. */
    public enum Output { json, table }

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = {"-o", "--output"}, paramLabel = "json|table", defaultValue = "table",
            description = "table (the default): for reading; json: the leader's answer as it sent it.")
    Output output;

    @Option(names = {"-e", "--errors"}, description = "On a failure, print the stack trace too.")
    boolean errors;

    @Option(names = "--leader", paramLabel = "URL", converter = LeaderAddress.Converter.class,
            description = "The leader: http://HOST:PORT, https://HOST:PORT or unix:/path/to.sock "
                    + "(default: SLURMLET_LEADER, then ctl.yaml, then unix:/run/slurmlet/leader.sock).")
    LeaderAddress leader;

    @Option(names = "--token-file", paramLabel = "PATH",
            description = "The file holding the leader's admin token, sent over TCP only "
                    + "(default: SLURMLET_TOKEN_FILE, then ctl.yaml, then /var/lib/slurmlet/admin.token).")
    Path tokenFile;

    public PrintWriter out() {
        return mixee.commandLine().getOut();
    }

    public PrintWriter err() {
        return mixee.commandLine().getErr();
    }

    public boolean json() {
        return output == Output.json;
    }

    /** Prints the leader's JSON answer as it sent it, ending the line. */
    public void printJson(String body) {
        PrintWriter out = out();
        out.print(body);
        if (!body.endsWith("\n")) {
            out.println();
        }
        out.flush();
    }

    /** Opens the leader named by the flags, the environment or ctl.yaml. */
    public Leader connect() {
        return ((CtlCommand) mixee.root().userObject()).connect(leader, tokenFile);
    }
}
