package io.slurmlet.agent.facts;

import io.slurmlet.agent.containers.ContainersDiff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.slurm.conf.Layout;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.FactsCheck;
import io.slurmlet.model.facts.NodeFacts;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
 */
public final class FactsCollector {

    /** How long each source may take unless told otherwise. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);

    public static final List<String> SLURMD_CONFIG = List.of("slurmd", "-C");
    public static final List<String> SLURMD_VERSION = List.of("slurmd", "-V");
    /** The first two bytes of slurmctld's saved state: the protocol version of the release that wrote it. */
    public static final List<String> SAVED_STATE =
            List.of("od", "-An", "-tu1", "-N2", Layout.DEBIAN.stateSaveLocation() + "/assoc_usage");
    /** What apt would install of slurmctld: asked only where slurmctld saved state. */
    public static final List<String> APT_POLICY = List.of("apt-cache", "policy", "slurmctld");

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

    public FactsCollector(Commands commands, HostFiles files) {
        this(commands, files, DEFAULT_DEADLINE);
    }

    public FactsCollector(Commands commands, HostFiles files, Duration deadline) {
        this.commands = commands;
        this.files = files;
        this.deadline = deadline;
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
        if (controllerInstalled()) {
            facts = facts.withSlurmPlugins(plugins(warnings));
        }
        facts = facts.withContainers(containers());
        int state = savedState();
        if (state != 0) {
            facts = facts.withSlurmctldState(state).withSlurmctldCandidate(candidate());
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

    /**
     * Where packages put Slurm's plugins, after Debian's and Ubuntu's multiarch folders
     * ({@code /usr/lib/x86_64-linux-gnu/slurm-wlm}): RPM's and a source build's. The first holding
     * auth_munge.so, which every Slurm slurmlet runs has, is Slurm's PluginDir.
     */
    static final List<Path> PLUGIN_DIRS = List.of(
            Path.of("/usr/lib64/slurm"),
            Path.of("/usr/lib/slurm"),
            Path.of("/usr/local/lib/slurm"),
            Path.of("/usr/local/lib64/slurm"));

    private static final Pattern MULTIARCH = Pattern.compile("[a-z0-9_]+-linux-[a-z0-9_]+");
    private static final Pattern PLUGIN_FILE = Pattern.compile("([a-z][a-z0-9_]{0,63})\\.so");

    /**
     * Whether slurmctld is installed here (a package's, or a source build's): only then are the
     * plugins reported (a site's plugin names are checked against the controller's), so that a
     * leader of thousands of nodes holds no list of a hundred names for each.
     */
    static final Path ENROOT = Path.of("/usr/bin/enroot");

    private static final Pattern ENROOT_VERSION =
            Pattern.compile("(?m)^export ENROOT_VERSION=\"([0-9A-Za-z.+~_-]{1,64})\"$");

    /**
     * What the machine has for jobs in containers: enroot's version (from its script), the pyxis the
     * containers step built (its stamp, where the plugin is there; the digest reported is the plugin
     * file's own), and slurmlet's prolog. Nothing where none of it is there;
     * a file that cannot be read counts as absent.
     */
    private ContainerFacts containers() {
        try {
            String enroot = files.read(ENROOT)
                    .map(ENROOT_VERSION::matcher)
                    .filter(Matcher::find)
                    .map(m -> m.group(1))
                    .orElse("");
            String plugin = files.bytes(Path.of(ContainerFacts.PYXIS_PLUGIN))
                    .map(ManagedFiles::sha256)
                    .orElse("");
            Optional<String> text = files.read(Path.of(ContainersDiff.PYXIS_STAMP));
            // A stamp without its plugin, or one that cannot be read, is no pyxis: the containers step builds it again.
            // A plugin
            // that is not the one its stamp records is reported with its own digest (the two differ for a moment while
            // the
            // containers step installs a new build, plugin then stamp: the leader is not made to take pyxis out for
            // that);
            // the slurm step does not load such a plugin, and the containers step builds it again.
            Optional<ContainersDiff.Stamp> stamp = text.isPresent() && !plugin.isEmpty()
                    ? ContainersDiff.Stamp.parse(text.get().getBytes(StandardCharsets.UTF_8))
                    : Optional.empty();
            boolean prolog = files.read(Path.of(ContainerFacts.PROLOG))
                    .filter(script -> script.contains("written by slurmlet"))
                    .isPresent();
            return new ContainerFacts(
                    enroot,
                    stamp.map(st -> st.pyxis()).orElse(""),
                    stamp.map(st -> st.slurm()).orElse(""),
                    stamp.isPresent() ? plugin : "",
                    prolog,
                    nvidiaCli());
        } catch (UncheckedIOException e) {
            return ContainerFacts.NONE;
        }
    }

    static final Path NVIDIA_CLI = Path.of("/usr/bin/nvidia-container-cli");
    private static final Pattern NVIDIA_CLI_VERSION =
            Pattern.compile("(?m)^cli-version: ([0-9A-Za-z.+~_-]{1,64})\\s*$");

    /**
     * nvidia-container-cli's version, as its {@code --version} says it ({@code cli-version: 1.17.8}),
     * where it is installed; "" where it is not, or does not answer so (it needs no driver for that).
     */
    private String nvidiaCli() {
        if (!files.list(NVIDIA_CLI.getParent()).contains(NVIDIA_CLI)) {
            return "";
        }
        try {
            Commands.Result r = commands.run(List.of(NVIDIA_CLI.toString(), "--version"), deadline);
            Matcher m = NVIDIA_CLI_VERSION.matcher(r.stdout());
            return r.succeeded() && m.find() ? m.group(1) : "";
        } catch (CommandFailed e) {
            return "";
        }
    }

    private boolean controllerInstalled() {
        try {
            for (Path slurmctld : SLURMCTLD) {
                if (files.list(slurmctld.getParent()).contains(slurmctld)) {
                    return true;
                }
            }
            return false;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    static final List<Path> SLURMCTLD = List.of(Path.of("/usr/sbin/slurmctld"), Path.of("/usr/local/sbin/slurmctld"));

    /** The Slurm plugins installed here, as {@code sched_backfill}; empty where Slurm's plugin folder is not found. */
    private List<String> plugins(List<String> warnings) {
        try {
            List<Path> dirs = new ArrayList<>();
            files.list(Path.of("/usr/lib")).stream()
                    .filter(d -> MULTIARCH.matcher(d.getFileName().toString()).matches())
                    .forEach(d -> dirs.add(d.resolve("slurm-wlm")));
            dirs.addAll(PLUGIN_DIRS);
            for (Path dir : dirs) {
                List<String> names = files.list(dir).stream()
                        .map(f -> PLUGIN_FILE.matcher(f.getFileName().toString()))
                        .filter(Matcher::matches)
                        .map(m -> m.group(1))
                        .sorted()
                        .toList();
                if (names.contains("auth_munge")) {
                    if (names.size() > FactsCheck.MAX_PLUGINS) {
                        // A list cut short would make a kind look partly missing: none is reported, and nothing is
                        // checked.
                        warnings.add(
                                ("%s holds %d plugins, more than the %d reported: none is reported, and a site's plugin "
                                                + "names are not checked")
                                        .formatted(dir, names.size(), FactsCheck.MAX_PLUGINS));
                        return List.of();
                    }
                    return names;
                }
            }
        } catch (UncheckedIOException e) {
            warnings.add(e.getMessage()
                    + "; the Slurm plugins installed are not reported, and a site's plugin names are not checked");
        }
        return List.of();
    }

    /** The protocol version of slurmctld's saved state here; 0 where there is none. */
    private int savedState() {
        Path file = Path.of(SAVED_STATE.get(SAVED_STATE.size() - 1));
        try {
            if (!files.list(file.getParent()).contains(file)) {
                return 0;
            }
        } catch (UncheckedIOException e) {
            return 0;
        }
        try {
            Commands.Result r = commands.run(SAVED_STATE, deadline);
            String[] bytes = r.stdout().strip().split("\\s+");
            if (!r.succeeded()
                    || bytes.length != 2
                    || !bytes[0].matches("[0-9]{1,3}")
                    || !bytes[1].matches("[0-9]{1,3}")) {
                return 0;
            }
            return (Integer.parseInt(bytes[0]) << 8) | Integer.parseInt(bytes[1]);
        } catch (CommandFailed e) {
            return 0;
        }
    }

    /** apt's candidate for slurmctld where it differs from the installed one; empty: none, the same, or no apt. */
    private String candidate() {
        try {
            Commands.Result r = commands.run(APT_POLICY, deadline);
            if (!r.succeeded()) {
                return "";
            }
            String installed = "";
            String candidate = "";
            for (String line : r.stdout().lines().toList()) {
                String l = line.strip();
                if (l.startsWith("Installed:")) {
                    installed = l.substring("Installed:".length()).strip();
                } else if (l.startsWith("Candidate:")) {
                    candidate = l.substring("Candidate:".length()).strip();
                }
            }
            if (candidate.equals(installed)) {
                return "";
            }
            // As the leader reads versions: 24.11.5, whatever the package's epoch and revision.
            return SlurmVersion.parse(candidate.replaceFirst("^[0-9]+:", ""))
                    .map(SlurmVersion::toString)
                    .orElse("");
        } catch (CommandFailed e) {
            return "";
        }
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
