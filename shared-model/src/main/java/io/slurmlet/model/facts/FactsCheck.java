package io.slurmlet.model.facts;

import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.text.Text;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rules a machine's facts must meet before the leader stores them: they become NodeName,
 * Gres and gres.conf lines in every machine's slurm.conf, so each field is typed and bounded as
 * Slurm holds it, and nothing in one can end its line or start another. Every rule runs; each
 * broken one adds a {@link Problem} naming the key, the value and the fix.
 */
public final class FactsCheck {

    /** Slurm keeps CPUs, boards, sockets, cores and threads in 16 bits. */
    public static final int MAX_COUNT = 65_535;
    /** 2^40 MiB (an exbibyte): beyond any machine, within what Slurm's RealMemory holds. */
    public static final long MAX_MEMORY_MIB = 1L << 40;

    public static final int MAX_GPU_MODELS = 16;
    /** GPUs of one model on one machine: the largest today hold 8 or 16. */
    public static final int MAX_GPUS_PER_MODEL = 64;

    public static final int MAX_MODEL_LENGTH = 128;
    public static final int MAX_OS_LENGTH = 64;
    /** Debian's 24.11 ships about 150 plugins across its packages. */
    public static final int MAX_PLUGINS = 1024;
    /** A plugin's file name without .so, as Slurm names them: switch_nvidia_imex, acct_gather_energy_ipmi. */
    private static final Pattern PLUGIN = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
    /** An IPv6 literal: hex groups and colons, at most one "::", an IPv4 tail allowed. */
    private static final Pattern IPV6 = Pattern.compile("(?=.*:)(?!.*::.*::)[0-9A-Fa-f:.]{2,45}");

    private static final Pattern HOST_LABEL = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
    /** A GPU model as drivers name them: NVIDIA H100 80GB HBM3, Tesla V100-SXM2-16GB, AMD Instinct MI300X. */
    private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9 ._/()+-]*");

    private static final Pattern OS = Pattern.compile("[A-Za-z0-9][A-Za-z0-9 ._+~()/-]*");
    /** As {@code slurmd -V} prints it: 22.05.8, 24.11.5, 25.11.0-0rc1. */
    private static final Pattern SLURM_VERSION =
            Pattern.compile("[0-9]{1,3}\\.[0-9]{1,3}(\\.[0-9]{1,4})?([.+~-][A-Za-z0-9.+~-]{1,40})?");

    private final List<Problem> problems = new ArrayList<>();

    private FactsCheck() {}

    /** What is wrong with {@code reported} as the facts of the machine {@code node}; empty: nothing. */
    public static List<Problem> problems(String node, NodeFacts reported) {
        FactsCheck check = new FactsCheck();
        check.check(node, reported);
        return List.copyOf(check.problems);
    }

    private void check(String node, NodeFacts f) {
        SlurmSettings.nodeNameProblem("node", node).ifPresent(problems::add);
        if (f.name() != null && !f.name().isEmpty() && !f.name().equals(node)) {
            add(
                    "name",
                    f.name(),
                    "name %s differs from the node %s in the path: report a machine's facts under its own name"
                            .formatted(Text.quote(f.name()), Text.quote(node)));
        }
        checkAddress(f.address());
        count("cpus", f.cpus());
        count("boards", f.boards());
        count("sockets", f.sockets());
        count("cores_per_socket", f.coresPerSocket());
        count("threads_per_core", f.threadsPerCore());
        if (f.memoryMiB() < 1 || f.memoryMiB() > MAX_MEMORY_MIB) {
            add(
                    "memory_mib",
                    Long.toString(f.memoryMiB()),
                    "memory_mib %d is not a machine's memory: from 1 to %d MiB, as slurmd -C reports RealMemory"
                            .formatted(f.memoryMiB(), MAX_MEMORY_MIB));
        }
        checkGpus(f.gpus());
        text("os", f.os(), OS, MAX_OS_LENGTH, "as os-release's ID and VERSION_ID, e.g. debian 12");
        if (!f.slurmVersion().isEmpty()
                && !SLURM_VERSION.matcher(f.slurmVersion()).matches()) {
            add(
                    "slurm_version",
                    f.slurmVersion(),
                    "slurm_version %s is not a Slurm version: as slurmd -V prints it, e.g. 24.11.5, or empty where Slurm is not installed"
                            .formatted(Text.quote(f.slurmVersion())));
        }
        if (!f.slurmctldCandidate().isEmpty()
                && !SLURM_VERSION.matcher(f.slurmctldCandidate()).matches()) {
            add(
                    "slurmctld_candidate",
                    f.slurmctldCandidate(),
                    ("slurmctld_candidate %s is not a Slurm version: as slurmd -V prints it, "
                                    + "e.g. 24.11.5, or empty")
                            .formatted(Text.quote(f.slurmctldCandidate())));
        }
        if (f.slurmPlugins().size() > MAX_PLUGINS) {
            add(
                    "slurm_plugins",
                    Integer.toString(f.slurmPlugins().size()),
                    "slurm_plugins names %d plugins, more than the %d any Slurm has: report the files of Slurm's plugin folder only"
                            .formatted(f.slurmPlugins().size(), MAX_PLUGINS));
        }
        f.slurmPlugins().stream()
                .filter(p -> !PLUGIN.matcher(p).matches())
                .limit(3)
                .forEach(p -> add(
                        "slurm_plugins",
                        p,
                        ("slurm_plugins names %s, which is not a Slurm plugin's file name: lower-case letters, "
                                        + "digits and _, without .so, e.g. sched_backfill")
                                .formatted(Text.quote(p))));
        checkContainers(f.containerTools());
        if (f.slurmctldState() < 0 || f.slurmctldState() > MAX_COUNT) {
            add(
                    "slurmctld_state",
                    Integer.toString(f.slurmctldState()),
                    ("slurmctld_state %d is not a Slurm protocol version: "
                                    + "the first two bytes of slurmctld's assoc_usage (e.g. 9728 for 22.05), or 0 where none is saved")
                            .formatted(f.slurmctldState()));
        }
    }

    private static final Pattern TOOL_VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+~_:-]{0,63}");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private void checkContainers(ContainerFacts c) {
        text("containers.enroot", c.enroot(), TOOL_VERSION, 64, "enroot's package version, e.g. 4.1.2-1, or empty");
        text("containers.pyxis", c.pyxis(), TOOL_VERSION, 64, "the pyxis version built, e.g. 0.24.0, or empty");
        text(
                "containers.nvidia_container_cli",
                c.nvidiaCli(),
                TOOL_VERSION,
                64,
                "nvidia-container-cli's version, e.g. 1.17.8, or empty");
        if (!c.pyxisSlurm().isEmpty() && !SLURM_VERSION.matcher(c.pyxisSlurm()).matches()) {
            add(
                    "containers.pyxis_slurm",
                    c.pyxisSlurm(),
                    ("containers.pyxis_slurm %s is not a Slurm version: the one pyxis was built "
                                    + "against, as slurmd -V prints it, e.g. 24.11.5, or empty")
                            .formatted(Text.quote(c.pyxisSlurm())));
        }
        if (!c.pyxisSha256().isEmpty() && !SHA256.matcher(c.pyxisSha256()).matches()) {
            add(
                    "containers.pyxis_sha256",
                    c.pyxisSha256(),
                    "containers.pyxis_sha256 %s is not a sha256: 64 lower-case hex digits, or empty"
                            .formatted(Text.quote(c.pyxisSha256())));
        }
    }

    private void checkAddress(String address) {
        if (address.isEmpty()
                || IPV4.matcher(address).matches()
                || IPV6.matcher(address).matches()
                || hostName(address)) {
            return;
        }
        add(
                "address",
                address,
                ("address %s is not an IP address or a host name (letters, digits and - in labels joined by dots, "
                                + "at most 253 characters): give the address the other machines reach this one at, e.g. 10.0.0.7, or leave it empty "
                                + "where the machine's name resolves")
                        .formatted(Text.quote(address)));
    }

    private static boolean hostName(String address) {
        if (address.length() > 253 || address.startsWith(".") || address.endsWith(".") || address.contains("..")) {
            return false;
        }
        for (String label : address.split("\\.")) {
            if (!HOST_LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }

    private void count(String key, long value) {
        if (value < 1 || value > MAX_COUNT) {
            add(
                    key,
                    Long.toString(value),
                    "%s %d is out of range: from 1 to %d, as slurmd -C reports it".formatted(key, value, MAX_COUNT));
        }
    }

    private void checkGpus(List<NodeFacts.Gpus> gpus) {
        if (gpus.size() > MAX_GPU_MODELS) {
            add(
                    "gpus",
                    Integer.toString(gpus.size()),
                    "gpus lists %d models: at most %d, one entry per model with its count"
                            .formatted(gpus.size(), MAX_GPU_MODELS));
            return;
        }
        Map<String, Integer> types = new HashMap<>();
        for (int i = 0; i < gpus.size(); i++) {
            NodeFacts.Gpus g = gpus.get(i);
            String key = "gpus[" + i + "]";
            if (g.count() < 1 || g.count() > MAX_GPUS_PER_MODEL) {
                add(
                        key + ".count",
                        Integer.toString(g.count()),
                        "%s.count %d is out of range: from 1 to %d GPUs of one model; leave out a model the machine has none of"
                                .formatted(key, g.count(), MAX_GPUS_PER_MODEL));
            }
            if (text(
                            key + ".model",
                            g.model(),
                            MODEL,
                            MAX_MODEL_LENGTH,
                            "as nvidia-smi names it, e.g. NVIDIA H100 80GB HBM3")
                    && !g.model().isEmpty()) {
                Integer other = types.putIfAbsent(g.slurmType(), i);
                if (other != null) {
                    add(
                            key + ".model",
                            g.model(),
                            "%s.model %s is the same GPU type as gpus[%d]'s %s (Slurm's type ignores case and punctuation): one entry per model, with its count"
                                    .formatted(
                                            key,
                                            Text.quote(g.model()),
                                            other,
                                            Text.quote(gpus.get(other).model())));
                }
            } else if (g.model().isEmpty()) {
                add(
                        key + ".model",
                        "",
                        "%s.model is empty: name the model, as nvidia-smi does, e.g. NVIDIA H100 80GB HBM3"
                                .formatted(key));
            }
        }
    }

    /** Adds a problem unless {@code value} is empty or matches {@code form} within {@code max} characters; says whether it was fine. */
    private boolean text(String key, String value, Pattern form, int max, String example) {
        if (value.isEmpty() || value.length() <= max && form.matcher(value).matches()) {
            return true;
        }
        String why = Text.unsafe(value)
                .orElse(
                        value.length() > max
                                ? "is longer than " + max + " characters"
                                : "holds a character other than letters, digits, spaces and . _ - + ( ) /");
        add(key, value, "%s %s %s: plain text, %s".formatted(key, Text.quote(value), why, example));
        return false;
    }

    private void add(String key, String value, String message) {
        problems.add(new Problem(key, value, message));
    }
}
