package io.slurmlet.agent.system;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A command that did not run to a successful end: not installed, not startable, past its deadline,
 * interrupted, or exited with a status other than 0. The message names the command, what went
 * wrong and the first lines it printed, as
 * {@code `nvidia-smi --query-gpu=name --format=csv,noheader` exited with status 9; it printed:
 * NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. …}.
 * A {@link SystemException}, so that the ports built on commands (Services, Packages) pass it on.
 */
public final class CommandFailed extends SystemException {

    /** How a command failed. */
    public enum Kind {
        /** The program is not on this machine (or not in the search path): it is not installed. */
        NOT_FOUND,
        /** The program is there but could not be started (not executable, out of processes…). */
        NOT_STARTED,
        /** It ran past its deadline; it and its descendants were killed. */
        PAST_DEADLINE,
        /** The agent's thread was interrupted while waiting; the command was killed. */
        INTERRUPTED,
        /** It ran and exited with a status other than 0. */
        EXITED
    }

    /** At most this many lines of what a command printed go into a message. */
    static final int LINES_SHOWN = 5;

    private static final int LINE_CHARS = 300;
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private final List<String> argv;
    private final Kind kind;
    private final int exit;
    private final String stderr;

    private CommandFailed(List<String> argv, Kind kind, int exit, String stderr, String message, Throwable cause) {
        super(message, cause);
        this.argv = List.copyOf(argv);
        this.kind = kind;
        this.exit = exit;
        this.stderr = stderr == null ? "" : stderr;
    }

    /** {@code argv[0]} is not installed; {@code where} says where it was looked for. */
    public static CommandFailed notFound(List<String> argv, String where) {
        return new CommandFailed(
                argv,
                Kind.NOT_FOUND,
                -1,
                "",
                "`%s` could not run: %s is not installed (not found in %s)"
                        .formatted(commandLine(argv), argv.isEmpty() ? "?" : argv.get(0), where),
                null);
    }

    public static CommandFailed notStarted(List<String> argv, Throwable cause) {
        return new CommandFailed(
                argv,
                Kind.NOT_STARTED,
                -1,
                "",
                "`%s` could not be started: %s".formatted(commandLine(argv), cause.getMessage()),
                cause);
    }

    /**
     * {@code argv} ran past {@code deadline} and was killed; {@code stderr} is what it had printed
     * there until then, {@code detail} an optional note on why.
     */
    public static CommandFailed pastDeadline(List<String> argv, Duration deadline, String stderr, String detail) {
        String msg = "`%s` ran past its deadline of %s and was killed with its child processes%s%s"
                .formatted(
                        commandLine(argv),
                        seconds(deadline),
                        detail == null || detail.isEmpty() ? "" : " (" + detail + ")",
                        printed("; it had printed: ", stderr));
        return new CommandFailed(argv, Kind.PAST_DEADLINE, -1, stderr, msg, null);
    }

    public static CommandFailed interrupted(List<String> argv) {
        return new CommandFailed(
                argv,
                Kind.INTERRUPTED,
                -1,
                "",
                "`%s` was killed: the agent stopped waiting for it (interrupted)".formatted(commandLine(argv)),
                null);
    }

    /** {@code argv} ran and exited with {@code result.exit()} ≠ 0. */
    public static CommandFailed exited(List<String> argv, Commands.Result result) {
        // Some programs (nvidia-smi) print their errors on stdout.
        String said = result.stderr().isBlank() ? result.stdout() : result.stderr();
        String msg = "`%s` exited with status %d%s"
                .formatted(commandLine(argv), result.exit(), printed("; it printed: ", said));
        if (said.isBlank()) {
            msg += " and printed nothing";
        }
        return new CommandFailed(argv, Kind.EXITED, result.exit(), result.stderr(), msg, null);
    }

    public List<String> argv() {
        return argv;
    }

    public Kind kind() {
        return kind;
    }

    /** True when the program is not installed. */
    public boolean notInstalled() {
        return kind == Kind.NOT_FOUND;
    }

    /** The exit status for {@link Kind#EXITED}; -1 otherwise. */
    public int exit() {
        return exit;
    }

    /** What the command printed on stderr (possibly nothing, or all it had printed when killed). */
    public String stderr() {
        return stderr;
    }

    /** {@code argv} as one would type it, quoting only the words that need it. */
    public static String commandLine(List<String> argv) {
        return argv.stream()
                .map(w -> PLAIN_WORD.matcher(w).matches() ? w : "'" + w.replace("'", "'\\''") + "'")
                .collect(Collectors.joining(" "));
    }

    /** The first few non-blank lines of {@code text}, each shortened, joined with " | ". */
    public static String firstLines(String text) {
        List<String> lines =
                text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        String shown = lines.stream()
                .limit(LINES_SHOWN)
                .map(l -> l.length() > LINE_CHARS ? l.substring(0, LINE_CHARS) + "…" : l)
                .collect(Collectors.joining(" | "));
        return lines.size() > LINES_SHOWN ? shown + " | … (" + (lines.size() - LINES_SHOWN) + " more lines)" : shown;
    }

    private static String printed(String lead, String text) {
        return text == null || text.isBlank() ? "" : lead + firstLines(text);
    }

    /** 10 s, 0.3 s. */
    static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + " s" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
