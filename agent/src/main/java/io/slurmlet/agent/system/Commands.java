package io.slurmlet.agent.system;

import java.time.Duration;
import java.util.List;

/**
 * Runs programs on the machine: the one way the agent starts a process. A command is an argv list,
 * never a shell line, and every call has a deadline. A program that runs and exits with any status
 * gives a {@link Result}; one that cannot be found, cannot be started or runs past its deadline
 * gives a {@link CommandFailed}, whose {@link CommandFailed#kind() kind} tells those apart (so a
 * caller can tell "slurmd is not installed" from "slurmd failed").
 */
public interface Commands {

    /**
     * Runs {@code argv} with stdin closed and {@code LC_ALL=C}, waits for it to end, and returns
     * its exit status and output.
     *
     * @param argv     the program (a name looked up in the search path, or a path) and its arguments
     * @param deadline how long it may run; past it, the program and its descendants are killed
     * @throws CommandFailed when the program is not found ({@link CommandFailed.Kind#NOT_FOUND}),
     *                       cannot be started, runs past {@code deadline}, or the wait is interrupted
     */
    Result run(List<String> argv, Duration deadline) throws CommandFailed;

    /**
     * Like {@link #run}, and also fails with {@link CommandFailed.Kind#EXITED} when the program
     * exits with a status other than 0.
     */
    default Result runChecked(List<String> argv, Duration deadline) throws CommandFailed {
        return run(argv, deadline).orThrow(argv);
    }

    /**
     * What a program that ran to its end left behind.
     *
     * @param exit   its exit status (128 + the signal number when a signal ended it)
     * @param stdout what it printed on stdout, decoded as UTF-8; a note at the end when it was cut
     * @param stderr what it printed on stderr, likewise
     */
    record Result(int exit, String stdout, String stderr) {

        public Result {
            stdout = stdout == null ? "" : stdout;
            stderr = stderr == null ? "" : stderr;
        }

        /** A program that exited with status 0 and printed {@code stdout}. */
        public static Result ok(String stdout) {
            return new Result(0, stdout, "");
        }

        public boolean succeeded() {
            return exit == 0;
        }

        /** This result when the program exited with status 0; else the failure of {@code argv}. */
        public Result orThrow(List<String> argv) throws CommandFailed {
            if (exit != 0) {
                throw CommandFailed.exited(argv, this);
            }
            return this;
        }
    }
}
