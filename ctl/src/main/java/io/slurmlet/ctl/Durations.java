package io.slurmlet.ctl;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations as a person types them on ctl's line, as {@code 30s}, {@code 5m}, {@code 1h} or {@code 1h30m}. */
final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private Durations() {}

    /** @throws IllegalArgumentException with the value and how to write one */
    static Duration parse(String text) {
        Matcher m = PART.matcher(text.strip());
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(
                    switch (m.group(2)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        default -> Duration.ofHours(n);
                    });
            end = m.end();
        }
        if (end == 0 || end != text.strip().length()) {
            throw new IllegalArgumentException(
                    "'%s' is not a duration ctl takes: write it as 30s, 5m, 1h or 1h30m".formatted(text));
        }
        if (total.isZero()) {
            throw new IllegalArgumentException(
                    "'%s' waits for nothing: give a time above zero, as 30s or 5m".formatted(text));
        }
        return total;
    }

    /** As {@link #parse} reads it: {@code 10m}, {@code 1h30m}, {@code 300ms}. */
    static String shown(Duration d) {
        StringBuilder s = new StringBuilder();
        if (d.toHours() > 0) {
            s.append(d.toHours()).append('h');
        }
        if (d.toMinutesPart() > 0) {
            s.append(d.toMinutesPart()).append('m');
        }
        if (d.toSecondsPart() > 0) {
            s.append(d.toSecondsPart()).append('s');
        }
        if (d.toMillisPart() > 0) {
            s.append(d.toMillisPart()).append("ms");
        }
        return s.isEmpty() ? "0s" : s.toString();
    }

    /** For picocli: a bad value is bad usage that names the option, the value and the fix. */
    static final class Converter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
