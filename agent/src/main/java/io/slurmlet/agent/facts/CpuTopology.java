package io.slurmlet.agent.facts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * How a machine's logical CPUs are arranged, as Slurm's NodeName line describes it, for machines
 * where {@code slurmd -C} cannot tell: counted from {@code /proc/cpuinfo} and, where that lacks
 * the ids (VMs, arm64), from {@code /sys/devices/system/cpu/cpu*}{@code /topology}.
 *
 * @param cpus           logical CPUs
 * @param sockets        sockets (on one board)
 * @param coresPerSocket cores per socket
 * @param threadsPerCore hardware threads per core
 */
public record CpuTopology(int cpus, int sockets, int coresPerSocket, int threadsPerCore) {

    /**
     * One logical CPU as the kernel lists it.
     *
     * @param processor its number ({@code processor : 12}, {@code cpu12})
     * @param packageId its socket ({@code physical id}, {@code physical_package_id}); empty: unknown
     * @param coreId    its core within the socket ({@code core id}, {@code core_id}); empty: unknown
     */
    public record Cpu(int processor, OptionalInt packageId, OptionalInt coreId) {

        public static Cpu unknown(int processor) {
            return new Cpu(processor, OptionalInt.empty(), OptionalInt.empty());
        }

        public boolean placed() {
            return packageId.isPresent() && coreId.isPresent();
        }
    }

    /** One socket of {@code cpus} cores with one thread each: what is said when nothing more is known. */
    public static CpuTopology flat(int cpus) {
        return new CpuTopology(cpus, 1, cpus, 1);
    }

    /**
     * The CPUs {@code /proc/cpuinfo} lists, in its order, with the ids it gives ({@code physical id},
     * {@code core id}); x86 gives both, arm64 and some VMs neither.
     */
    public static List<Cpu> parseCpuinfo(String cpuinfo) {
        List<Cpu> cpus = new ArrayList<>();
        Map<String, String> block = new HashMap<>();
        for (String line : (cpuinfo + "\n\n").split("\n", -1)) {
            if (line.isBlank()) {
                block(block).ifPresent(cpus::add);
                block.clear();
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                block.putIfAbsent(
                        line.substring(0, colon).strip(),
                        line.substring(colon + 1).strip());
            }
        }
        return cpus;
    }

    private static Optional<Cpu> block(Map<String, String> kv) {
        OptionalInt processor = number(kv.get("processor"));
        if (processor.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Cpu(processor.getAsInt(), number(kv.get("physical id")), number(kv.get("core id"))));
    }

    /** The number {@code text} holds ({@code "0\n"} as sysfs prints it); empty when it holds none. */
    public static OptionalInt number(String text) {
        if (text == null) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(text.strip()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * The arrangement of {@code cpus}: sockets are the distinct package ids, cores the distinct
     * (package, core) pairs. When some CPU's place is unknown, or the counts do not multiply out
     * to the number of CPUs (uneven sockets, CPUs taken offline), it is {@link #flat}: Slurm
     * refuses a NodeName line whose sockets × cores × threads exceeds what slurmd finds.
     */
    public static CpuTopology of(List<Cpu> cpus) {
        int n = cpus.size();
        if (n == 0 || !cpus.stream().allMatch(Cpu::placed)) {
            return flat(n);
        }
        Set<Integer> packages = new HashSet<>();
        Set<List<Integer>> cores = new HashSet<>();
        for (Cpu c : cpus) {
            packages.add(c.packageId().getAsInt());
            cores.add(List.of(c.packageId().getAsInt(), c.coreId().getAsInt()));
        }
        int sockets = packages.size();
        int coreCount = cores.size();
        if (coreCount % sockets != 0 || n % coreCount != 0) {
            return flat(n);
        }
        return new CpuTopology(n, sockets, coreCount / sockets, n / coreCount);
    }
}
