package io.slurmlet.ctl;

import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What one run of a command needs: the common options (wherever on the line they came), the
 * command's own writers, and the way to the leader.
 */
public final class Session {

    private final CommandSpec spec;
    private final CtlCommand ctl;

    private Session(CommandSpec spec, CtlCommand ctl) {
        this.spec = spec;
        this.ctl = ctl;
    }

    /** The session of the command {@code spec} describes. */
    public static Session of(CommandSpec spec) {
        return new Session(spec, (CtlCommand) spec.root().userObject());
    }

    public CommonOptions options() {
        return ctl.options;
    }

    public PrintWriter out() {
        return spec.commandLine().getOut();
    }

    public PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Standard input, for a file named {@code -}. */
    public InputStream in() {
        return ctl.stdin;
    }

    /** Whether {@code -o json} asks for the leader's answers as they are. */
    public boolean json() {
        return ctl.options.json();
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

    /** How often {@code --wait} asks the leader again. */
    public Duration pollInterval() {
        return ctl.pollInterval();
    }

    /**
     * One call to the leader and its answer printed: the leader's body with {@code -o json}, else
     * what {@code human} writes of it. Returns the exit code, 0; a refusal is thrown as ctl's error.
     */
    public <T> int answer(Function<Leader, Leader.Answer<T>> call, BiConsumer<PrintWriter, T> human) {
        try (Leader leader = connect()) {
            Leader.Answer<T> answer = call.apply(leader);
            if (json()) {
                printJson(answer.body());
            } else {
                human.accept(out(), answer.value());
                out().flush();
            }
            return 0;
        }
    }

    /** Opens the leader named by the flags, the environment or ctl.yaml. */
    public Leader connect() {
        return ctl.connect(ctl.options.leader, ctl.options.tokenFile);
    }
}
