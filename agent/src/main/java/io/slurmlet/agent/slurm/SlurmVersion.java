package io.slurmlet.agent.slurm;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Slurm release, as {@code 22.05.8}: year, month, and maintenance release. Slurm names its
 * major releases by year and month (22.05, 23.02, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05).
 */
public record SlurmVersion(int year, int month, int micro) implements Comparable<SlurmVersion> {

    /** 22.05.8, or a Debian package version such as 22.05.8-4+deb12u3, or {@code slurm 24.11.5}. */
    private static final Pattern TEXT = Pattern.compile("(?:slurm(?:-wlm)?\\s+)?(\\d{2})\\.(\\d{2})(?:\\.(\\d+))?.*");

    public static SlurmVersion of(int year, int month) {
        return new SlurmVersion(year, month, 0);
    }

    /** Reads a version as Slurm, dpkg or rpm print it. */
    public static Optional<SlurmVersion> parse(String text) {
        Matcher m = TEXT.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new SlurmVersion(
                Integer.parseInt(m.group(1)),
                Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
    }

    /** The major release, as {@code 24.11}. */
    public String release() {
        return "%02d.%02d".formatted(year, month);
    }

    public boolean atLeast(int year, int month) {
        return compareTo(of(year, month)) >= 0;
    }

    @Override
    public int compareTo(SlurmVersion o) {
        int c = Integer.compare(year, o.year);
        if (c == 0) {
            c = Integer.compare(month, o.month);
        }
        return c != 0 ? c : Integer.compare(micro, o.micro);
    }

    @Override
    public String toString() {
        return "%02d.%02d.%d".formatted(year, month, micro);
    }
}
