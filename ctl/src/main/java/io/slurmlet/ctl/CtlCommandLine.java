package io.slurmlet.ctl;

import io.quarkus.picocli.runtime.PicocliCommandLineFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How ctl reports what goes wrong: bad usage (exit 2) is the message, a suggestion and where to
 * find help; a refused or failed command (exit 1) is its message and details, with the stack trace
 * only under {@code -e}; with {@code -o json} the leader's error answer also goes to stdout.
 */
@ApplicationScoped
public class CtlCommandLine {

    /** Quarkus' command line, set up as {@link #configure} says. */
    @Produces
    CommandLine commandLine(PicocliCommandLineFactory factory) {
        return configure(factory.create());
    }

    public static CommandLine configure(CommandLine commandLine) {
        return commandLine
                .setParameterExceptionHandler(CtlCommandLine::badUsage)
                .setExecutionExceptionHandler(CtlCommandLine::failed);
    }

    private static int badUsage(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("See '" + cl.getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }

    private static int failed(Exception e, CommandLine cl, ParseResult parsed) {
        PrintWriter err = cl.getErr();
        CommonOptions options = ((CtlCommand) cl.getCommandSpec().root().userObject()).options;
        if (e instanceof CtlException c) {
            if (c.responseBody() != null && options.json()) {
                PrintWriter out = cl.getOut();
                out.println(c.responseBody().stripTrailing());
                out.flush();
            }
            err.println(c.getMessage());
            c.details().forEach(d -> err.println("  " + d));
        } else {
            err.println("ctl failed: " + e + (options.errors ? "" : " (run it again with -e for the stack trace)"));
        }
        if (options.errors) {
            e.printStackTrace(err);
        }
        err.flush();
        return cl.getCommandSpec().exitCodeOnExecutionException();
    }
}
