package io.slurmlet.agent.facts;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.model.facts.NodeFacts;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds out what the machine is (reconcile step 1, inventory): CPUs and memory, GPUs, operating
 * system and installed Slurm version, through {@link Commands} and {@link HostFiles}. Each source
 * has a deadline. A source that fails does not stop the others: the collector says what it could
 * not learn in a warning and carries on with a fallback (the kernel's {@code /proc} and
 * {@code /sys} for CPUs and memory; no GPUs; no OS). It never throws for what the machine does.
 * Where slurmctld is installed, {@link ControllerFacts} adds what it says; {@link ContainerTools}
 * what the machine has for jobs in containers.
 */
public final class FactsCollector {

    /** How long each source may take unless told otherwise. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);

    public static final List<String> SLURMD_CONFIG = List.of("slurmd", "-C");
    public static final List<String> SLURMD_VERSION = List.of("slurmd", "-V");

    static final Path CPUINFO = Path.of("/proc/cpuinfo");
    static final Path MEMINFO = Path.of("/proc/meminfo");
    static final Path SYS_CPUS = Path.of("/sys/devices/system/cpu");
    static final List<Path> OS_RELEASE = List.of(Path.of("/etc/os-release"), Path.of("/usr/lib/os-release"));

    private static final Pattern CPU_DIR = Pattern.compile("cpu(\\d+)");

    /**
     * What was learnt about the machine, and what could not be.
     *
     * @param facts    the machine's facts, with fallbacks where a source failed
     * @param warnings one sentence per source that failed: which command or file, what it said,
     *                 what was used instead; empty: every source answered
     */
    public record Collected(NodeFacts facts, List<String> warnings) {
        public Collected {
            warnings = List.copyOf(warnings);
        }
    }

    private final Commands commands;
    private final HostFiles files;
    private final Duration deadline;
    private final ContainerTools containers;
    private final ControllerFacts controller;

    public FactsCollector(Commands commands, HostFiles files) {
        this(commands, files, DEFAULT_DEADLINE);
    }

    public FactsCollector(Commands commands, HostFiles files, Duration deadline) {
        this.commands = commands;
        this.files = files;
        this.deadline = deadline;
        this.containers = new ContainerTools(commands, files, deadline);
        this.controller = new ControllerFacts(commands, files, deadline);
    }

    /** The facts of this machine, under the cluster name {@code nodeName}; the address is left empty. */
    public Collected collect(String nodeName) {
        List<String> warnings = new ArrayList<>();
        SlurmdAnswer slurmd = slurmdConfig(nodeName, warnings);
        NodeFacts hw = slurmd.facts().orElseGet(() -> fromKernel(nodeName, warnings));
        String version = slurmd.installed() ? slurmVersion(warnings) : "";
        List<NodeFacts.Gpus> gpus = gpus(warnings);
        String os = os(warnings);
        NodeFacts facts = hw.toBuilder()
                .name(nodeName)
                .address("")
                .gpus(gpus)
                .os(os)
                .slurmVersion(version)
                .build();
        if (controller.installed()) {
            facts = facts.withSlurmPlugins(controller.plugins(warnings));
        }
        facts = facts.withContainers(containers.read());
        int state = controller.savedState();
        if (state != 0) {
            facts = facts.withSlurmctldState(state).withSlurmctldCandidate(controller.candidate());
        }
        return new Collected(facts, warnings);
    }

    private record SlurmdAnswer(boolean installed, Optional<NodeFacts> facts) {}

    private SlurmdAnswer slurmdConfig(String nodeName, List<String> warnings) {
        String instead = "; CPUs and memory were read from /proc and /sys instead";
        try {
            Commands.Result r = commands.run(SLURMD_CONFIG, deadline);
            if (!r.succeeded()) {
                warnings.add(CommandFailed.exited(SLURMD_CONFIG, r).getMessage() + instead);
                return new SlurmdAnswer(true, Optional.empty());
            }
            Optional<NodeFacts> facts = SlurmdConfig.parse(nodeName, r.stdout());
            if (facts.isEmpty()) {
                warnings.add("`slurmd -C` printed no NodeName line with CPUs and RealMemory (it printed: "
                        + CommandFailed.firstLines(r.stdout()) + ")" + instead);
            }
            return new SlurmdAnswer(true, facts);
        } catch (CommandFailed e) {
            if (e.notInstalled()) {
                return new SlurmdAnswer(false, Optional.empty());
            }
            warnings.add(e.getMessage() + instead);
            return new SlurmdAnswer(true, Optional.empty());
        }
    }

    /** CPUs from /proc/cpuinfo (ids from sysfs where it lacks them), memory from /proc/meminfo. */
    private NodeFacts fromKernel(String nodeName, List<String> warnings) {
        CpuTopology topology = topology(warnings);
        long memory = 0;
        try {
            OptionalLong mib = files.read(MEMINFO).map(MemInfo::totalMiB).orElse(OptionalLong.empty());
            if (mib.isPresent()) {
                memory = mib.getAsLong();
            } else {
                warnings.add(MEMINFO + " has no MemTotal line; memory is reported as 0 MiB");
            }
        } catch (UncheckedIOException e) {
            warnings.add(e.getMessage() + "; memory is reported as 0 MiB");
        }
        return NodeFacts.builder(nodeName)
                .cpus(topology.cpus())
                .sockets(topology.sockets())
                .coresPerSocket(topology.coresPerSocket())
                .threadsPerCore(topology.threadsPerCore())
                .memoryMiB(memory)
                .build();
    }

    private CpuTopology topology(List<String> warnings) {
        try {
            List<CpuTopology.Cpu> cpus =
                    files.read(CPUINFO).map(CpuTopology::parseCpuinfo).orElse(List.of());
            if (cpus.isEmpty()) {
                cpus = sysfsCpus();
            }
            if (cpus.isEmpty()) {
                int n = Runtime.getRuntime().availableProcessors();
                warnings.add("neither " + CPUINFO + " nor " + SYS_CPUS + " lists the CPUs; reporting the " + n
                        + " CPUs the agent may use, on one socket");
                return CpuTopology.flat(n);
            }
            return CpuTopology.of(
                    cpus.stream().map(c -> c.placed() ? c : fromSysfs(c)).toList());
        } catch (UncheckedIOException e) {
            int n = Runtime.getRuntime().availableProcessors();
            warnings.add(e.getMessage() + "; reporting the " + n + " CPUs the agent may use, on one socket");
            return CpuTopology.flat(n);
        }
    }

    private List<CpuTopology.Cpu> sysfsCpus() {
        List<CpuTopology.Cpu> cpus = new ArrayList<>();
        for (Path p : files.list(SYS_CPUS)) {
            Matcher m = CPU_DIR.matcher(p.getFileName().toString());
            if (m.matches()) {
                cpus.add(CpuTopology.Cpu.unknown(Integer.parseInt(m.group(1))));
            }
        }
        return cpus;
    }

    /** {@code cpu} with the ids of {@code /sys/devices/system/cpu/cpuN/topology}, where they are. */
    private CpuTopology.Cpu fromSysfs(CpuTopology.Cpu cpu) {
        Path dir = SYS_CPUS.resolve("cpu" + cpu.processor()).resolve("topology");
        var pkg = cpu.packageId().isPresent()
                ? cpu.packageId()
                : files.read(dir.resolve("physical_package_id"))
                        .map(CpuTopology::number)
                        .orElse(OptionalInt.empty());
        var core = cpu.coreId().isPresent()
                ? cpu.coreId()
                : files.read(dir.resolve("core_id")).map(CpuTopology::number).orElse(OptionalInt.empty());
        return new CpuTopology.Cpu(cpu.processor(), pkg, core);
    }

    private String slurmVersion(List<String> warnings) {
        try {
            Commands.Result r = commands.runChecked(SLURMD_VERSION, deadline);
            Optional<SlurmVersion> v =
                    SlurmVersion.parse(r.stdout().strip().lines().findFirst().orElse(""));
            if (v.isEmpty()) {
                warnings.add("`slurmd -V` printed no version (it printed: " + CommandFailed.firstLines(r.stdout())
                        + "); the installed Slurm version is not reported");
            }
            return v.map(SlurmVersion::toString).orElse("");
        } catch (CommandFailed e) {
            warnings.add(e.getMessage() + "; the installed Slurm version is not reported");
            return "";
        }
    }

    private List<NodeFacts.Gpus> gpus(List<String> warnings) {
        try {
            NvidiaSmi.Listing listing = NvidiaSmi.read(commands.run(NvidiaSmi.QUERY, deadline));
            listing.problem().ifPresent(warnings::add);
            return listing.gpus();
        } catch (CommandFailed e) {
            if (!e.notInstalled()) {
                warnings.add(e.getMessage() + "; this machine's GPUs are not counted");
            }
            return List.of();
        }
    }

    private String os(List<String> warnings) {
        try {
            for (Path p : OS_RELEASE) {
                Optional<String> text = files.read(p);
                if (text.isPresent()) {
                    String os = OsRelease.describe(text.get());
                    if (os.isEmpty()) {
                        warnings.add(p + " has no ID line; the operating system is not reported");
                    }
                    return os;
                }
            }
            warnings.add("neither " + OS_RELEASE.get(0) + " nor " + OS_RELEASE.get(1)
                    + " exists; the operating system is not reported");
        } catch (UncheckedIOException e) {
            warnings.add(e.getMessage() + "; the operating system is not reported");
        }
        return "";
    }
}
