package io.slurmlet.ctl;

import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The options every command takes, mixed into {@code ctl} and inherited by every subcommand, so
 * that they may come anywhere on the line ({@code ctl --leader URL slurm show} and
 * {@code ctl slurm show --leader URL} alike): how to print ({@code -o}, {@code -e}) and where the
 * leader is ({@code --leader}, {@code --token-file}). Commands use them through {@link Session}.
 */
public class CommonOptions {

    /** How to print an answer. */
    public enum Output {
        json,
        table
    }

    @Option(
            names = {"-o", "--output"},
            paramLabel = "json|table",
            scope = ScopeType.INHERIT,
            description = "table (the default): for reading; json: the leader's answer as it sent it.")
    Output output;

    @Option(
            names = {"-e", "--errors"},
            scope = ScopeType.INHERIT,
            description = "On a failure, print the stack trace too.")
    boolean errors;

    @Option(
            names = "--leader",
            paramLabel = "URL",
            converter = LeaderAddress.Converter.class,
            scope = ScopeType.INHERIT,
            description =
                    "The leader: http://HOST:PORT, https://HOST:PORT or unix:/PATH (when not given: see the end of 'ctl --help').")
    LeaderAddress leader;

    @Option(
            names = "--token-file",
            paramLabel = "PATH",
            scope = ScopeType.INHERIT,
            description =
                    "The file with the leader's admin token, sent over TCP only (when not given: see the end of 'ctl --help').")
    Path tokenFile;

    public boolean json() {
        return output == Output.json;
    }
}
