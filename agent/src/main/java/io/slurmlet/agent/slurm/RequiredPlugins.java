package io.slurmlet.agent.slurm;

import io.slurmlet.agent.containers.ContainersDiff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.plan.ManagedFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SPANK plugins the plan's plugstack.conf requires, and which of them this machine lacks: a job
 * fails, and slurmd does not start, without one. The slurm step holds Slurm's files and daemons back
 * while one is missing ({@link SlurmDiff.Seen#missingPlugins}); pyxis counts as missing where it
 * would not load into this machine's Slurm.
 */
final class RequiredPlugins {

    private static final Pattern REQUIRED_PLUGIN = Pattern.compile("(?m)^required\\s+(/\\S+)");

    private final Files files;
    private final Commands commands;
    private final Path root;

    RequiredPlugins(Files files, Commands commands, Path root) {
        this.files = files;
        this.commands = commands;
        this.root = root;
    }

    /** The plugins {@code plugstack} (plugstack.conf's text) requires: a job fails, and slurmd does not start, without one. */
    static List<String> of(String plugstack) {
        List<String> paths = new ArrayList<>();
        Matcher m = REQUIRED_PLUGIN.matcher(plugstack);
        while (m.find()) {
            paths.add(m.group(1));
        }
        return paths;
    }

    /** The plugins the wanted plugstack.conf requires that are not on this machine. */
    Set<String> missing(Wanted wanted) throws IOException {
        Set<String> missing = new TreeSet<>();
        for (ManagedFile f : wanted.files()) {
            if (f.path().equals(SlurmDiff.PLUGSTACK)) {
                for (String plugin : of(f.content())) {
                    Optional<Files.Stat> st = files.stat(ManagedFiles.under(root, plugin));
                    if (st.isEmpty()) {
                        missing.add(plugin);
                    } else if (plugin.equals(ContainerFacts.PYXIS_PLUGIN)) {
                        unloadablePyxis(st.get().content()).ifPresent(why -> missing.add(plugin + " " + why));
                    }
                }
            }
        }
        return missing;
    }

    /**
     * Why the pyxis here would not load into this machine's Slurm, in words; empty where it would. A
     * plugin of another Slurm release is refused by Slurm (a machine whose Slurm was upgraded in
     * place keeps the pyxis built for the one before until the containers step builds it again), and
     * one that is not what slurmlet built and recorded is of no known release.
     */
    private Optional<String> unloadablePyxis(byte[] plugin) throws IOException {
        Optional<ContainersDiff.Stamp> stamp = files.stat(ManagedFiles.under(root, ContainersDiff.PYXIS_STAMP))
                .flatMap(f -> ContainersDiff.Stamp.parse(f.content()));
        if (stamp.isEmpty() || !stamp.get().sha256().equals(ManagedFiles.sha256(plugin))) {
            return Optional.of("(not the one slurmlet built and recorded in " + ContainersDiff.PYXIS_STAMP + ")");
        }
        Optional<SlurmVersion> installed = installedSlurm();
        if (installed.isPresent()
                && !SlurmVersion.parse(stamp.get().slurm())
                        .map(SlurmVersion::release)
                        .equals(Optional.of(installed.get().release()))) {
            return Optional.of("(built for Slurm %s; this machine's is %s)"
                    .formatted(stamp.get().slurm(), installed.get()));
        }
        return Optional.empty();
    }

    /** How long the look at the installed Slurm's version may take, each program asked. */
    static final Duration VERSION_LOOK = Duration.ofSeconds(10);

    /**
     * The installed Slurm's version, as its daemons say it (slurmd, the one that loads the plugin,
     * then slurmctld, then srun, which reads slurm.conf and plugstack.conf even for -V); empty where
     * none answers, which leaves the plugin's release unjudged rather than failing the pass.
     */
    private Optional<SlurmVersion> installedSlurm() {
        for (List<String> argv : List.of(List.of("slurmd", "-V"), List.of("slurmctld", "-V"), List.of("srun", "-V"))) {
            try {
                Commands.Result r = commands.run(argv, VERSION_LOOK);
                Optional<SlurmVersion> version = r.succeeded() ? SlurmVersion.parse(r.stdout()) : Optional.empty();
                if (version.isPresent()) {
                    return version;
                }
            } catch (SystemException e) {
                // not installed, or it did not answer: the next one, else unknown
            }
        }
        return Optional.empty();
    }
}
