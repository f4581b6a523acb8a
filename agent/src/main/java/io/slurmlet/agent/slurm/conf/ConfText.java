package io.slurmlet.agent.slurm.conf;

import io.slurmlet.model.text.Text;
import java.util.Arrays;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One of Slurm's files as it is written: a header, sections, {@code Key=Value} lines. Values with
 * spaces are quoted, as slurm.conf wants {@code Reason="slurmlet: not lent"}.
 *
 * <p>Whatever it is given, it writes no line that Slurm's parser would read as more or other than
 * the key and value meant: a key is a word of letters and digits, and a value that holds a line
 * break or another control character, a double quote, a backslash (which joins the next line) or a
 * {@code #} (a comment) is refused with an exception, as is a comment that holds a line break. The
 * checks where values enter (settings, facts) refuse these first, naming the key; this is the last
 * line of defence.
 */
final class ConfText {

    private static final Pattern KEY = Pattern.compile("[A-Za-z][A-Za-z0-9]*");

    private final StringBuilder text = new StringBuilder(4096);
    private final String file;

    ConfText(String file, String generator) {
        this.file = file;
        text.append("# ")
                .append(file)
                .append(": written by slurmlet, with its generator for Slurm ")
                .append(generator)
                .append(".\n")
                .append("# slurmlet rewrites this file: edits here are lost. Change the cluster with `ctl slurm set`\n")
                .append("# (`ctl slurm set --help` lists the keys; slurm.conf lines of a site's own go in\n")
                .append("# `ctl slurm set slurm_conf.KEY=VALUE`).\n");
    }

    ConfText section(String title) {
        text.append("\n# ").append(oneLine(title)).append('\n');
        return this;
    }

    ConfText comment(String line) {
        text.append("# ").append(oneLine(line)).append('\n');
        return this;
    }

    private String oneLine(String comment) {
        if (Text.unsafe(comment).isPresent()) {
            throw new IllegalArgumentException(
                    "a comment of " + file + " holds a line break or a control character: " + Text.quote(comment));
        }
        return comment;
    }

    ConfText set(String key, Object value) {
        return line(key, value);
    }

    /** A line of several {@code Key=Value} pairs, as NodeName and PartitionName lines are. */
    ConfText line(Object... keysAndValues) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (i > 0) {
                line.append(' ');
            }
            String key = key(String.valueOf(keysAndValues[i]));
            line.append(key).append('=').append(value(key, String.valueOf(keysAndValues[i + 1])));
        }
        text.append(line).append('\n');
        return this;
    }

    private static final Pattern PLUGSTACK_WORD = Pattern.compile("[A-Za-z0-9/._=+,:-]+");

    /**
     * A plugstack.conf line: {@code required} or {@code optional}, the plugin's path, its arguments;
     * each a word of letters, digits and {@code / . _ = + , : -}.
     */
    ConfText plugin(String requirement, String path, String... args) {
        if (!requirement.equals("required") && !requirement.equals("optional")) {
            throw new IllegalArgumentException(
                    "a plugstack line is required or optional, not " + Text.quote(requirement));
        }
        StringBuilder line = new StringBuilder(requirement);
        for (String word : Stream.concat(Stream.of(path), Arrays.stream(args)).toList()) {
            if (!PLUGSTACK_WORD.matcher(word).matches()) {
                throw new IllegalArgumentException("not a word of " + file + ": " + Text.quote(word));
            }
            line.append(' ').append(word);
        }
        text.append(line).append('\n');
        return this;
    }

    private String key(String key) {
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("not a key of " + file + ": " + Text.quote(key));
        }
        return key;
    }

    /** {@code value} as written after {@code key=}: in double quotes where it holds a space. */
    private String value(String key, String value) {
        if (value.isEmpty()
                || value.chars().anyMatch(c -> c == '"' || c == '\\' || c == '#')
                || Text.unsafe(value).isPresent()) {
            throw new IllegalArgumentException(
                    "%s of %s cannot be written as one value: %s".formatted(key, file, Text.quote(value)));
        }
        return value.contains(" ") ? "\"" + value + "\"" : value;
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
