package io.slurmlet.agent.facts;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the machine's physical memory from {@code /proc/meminfo}, when {@code slurmd -C} cannot tell. */
public final class MemInfo {

    private static final Pattern MEM_TOTAL = Pattern.compile("(?m)^MemTotal:\\s*(\\d+)\\s*kB\\s*$");

    private MemInfo() {}

    /** {@code MemTotal} in MiB (rounded down, as slurmd's RealMemory); empty when it is not there. */
    public static OptionalLong totalMiB(String meminfo) {
        Matcher m = MEM_TOTAL.matcher(meminfo);
        if (!m.find()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(m.group(1)) / 1024);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
