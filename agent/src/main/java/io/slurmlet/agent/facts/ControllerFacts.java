package io.slurmlet.agent.facts;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.slurm.conf.Layout;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.model.facts.FactsCheck;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a machine with slurmctld says of it: the Slurm plugins installed, the protocol version of
 * slurmctld's saved state, and the slurmctld an upgrade would install.
 */
record ControllerFacts(Commands commands, HostFiles files, Duration deadline) {

    /** The first two bytes of slurmctld's saved state: the protocol version of the release that wrote it. */
    static final List<String> SAVED_STATE =
            List.of("od", "-An", "-tu1", "-N2", Layout.DEBIAN.stateSaveLocation() + "/assoc_usage");
    /** What apt would install of slurmctld: asked only where slurmctld saved state. */
    static final List<String> APT_POLICY = List.of("apt-cache", "policy", "slurmctld");

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

    static final List<Path> SLURMCTLD = List.of(Path.of("/usr/sbin/slurmctld"), Path.of("/usr/local/sbin/slurmctld"));

    /**
     * Whether slurmctld is installed here (a package's, or a source build's): only then are the
     * plugins reported (a site's plugin names are checked against the controller's), so that a
     * leader of thousands of nodes holds no list of a hundred names for each.
     */
    boolean installed() {
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

    /** The Slurm plugins installed here, as {@code sched_backfill}; empty where Slurm's plugin folder is not found. */
    List<String> plugins(List<String> warnings) {
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
    int savedState() {
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
    String candidate() {
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
}
