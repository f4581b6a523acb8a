package io.slurmlet.ctl;

import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --wait} and {@code --timeout}, which {@code lend} and {@code unlend} share. */
public class WaitOptions {

    @Option(
            names = "--wait",
            description = "After storing the change, prints each change of the nodes' phases until all are "
                    + "lent (lend) or back on the platform (unlend); exit 1 when one is not within --timeout.")
    boolean wait;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "10m",
            converter = Durations.Converter.class,
            description = "How long --wait waits, as 30s, 5m or 1h (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    /** Refuses what does not go together: {@code --wait} with {@code --dry-run}, {@code --timeout} without {@code --wait}. */
    void check(CommandSpec spec, boolean dryRun) {
        if (wait && dryRun) {
            throw new ParameterException(
                    spec.commandLine(), "--wait follows a stored change, and --dry-run stores none: give one of them");
        }
        if (!wait && spec.commandLine().getParseResult().hasMatchedOption("--timeout")) {
            throw new ParameterException(
                    spec.commandLine(), "--timeout is how long --wait waits: add --wait, or drop --timeout");
        }
    }
}
