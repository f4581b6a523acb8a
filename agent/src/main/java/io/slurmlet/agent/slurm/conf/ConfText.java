package io.slurmlet.agent.slurm.conf;

/**
 * One of Slurm's files as it is written: a header, sections, {@code Key=Value} lines. Values with
 * spaces are quoted, as slurm.conf wants {@code Reason="slurmlet: not lent"}.
 */
final class ConfText {

    private final StringBuilder text = new StringBuilder(4096);

    ConfText(String file, String generator) {
        text.append("# ").append(file).append(": written by slurmlet, with its generator for Slurm ").append(generator)
                .append(".\n")
                .append("# slurmlet rewrites this file: edits here are lost. Change the cluster with `ctl slurm set`\n")
                .append("# (`ctl slurm set --help` lists the keys; slurm.conf lines of a site's own go in\n")
                .append("# `ctl slurm set slurm_conf.KEY=VALUE`).\n");
    }

    ConfText section(String title) {
        text.append("\n# ").append(title).append('\n');
        return this;
    }

    ConfText comment(String line) {
        text.append("# ").append(line).append('\n');
        return this;
    }

    ConfText set(String key, Object value) {
        text.append(key).append('=').append(quote(String.valueOf(value))).append('\n');
        return this;
    }

    /** A line of several {@code Key=Value} pairs, as NodeName and PartitionName lines are. */
    ConfText line(Object... keysAndValues) {
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (i > 0) {
                text.append(' ');
            }
            text.append(keysAndValues[i]).append('=').append(quote(String.valueOf(keysAndValues[i + 1])));
        }
        text.append('\n');
        return this;
    }

    static String quote(String value) {
        return value.contains(" ") && !value.startsWith("\"") ? "\"" + value + "\"" : value;
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
