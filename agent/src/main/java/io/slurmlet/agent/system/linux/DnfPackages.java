package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.SystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link Packages} on RHEL, Rocky, Alma and Fedora: rpm says what is installed; dnf installs what
 * is missing, without asking and without weak dependencies (as apt's --no-install-recommends).
 * Slurm comes from EPEL there: a site enables it; the planner names EPEL's packages.
 */
public final class DnfPackages implements Packages {

    static final Duration QUERY = Duration.ofSeconds(30);
    static final Duration INSTALL = Duration.ofMinutes(15);

    private final Commands commands;

    public DnfPackages(Commands commands) {
        this.commands = commands;
    }

    @Override
    public List<String> missing(List<String> names) throws SystemException {
        if (names.isEmpty()) {
            return List.of();
        }
        List<String> argv = new ArrayList<>(List.of("rpm", "-q", "--qf", "%{NAME}\\n"));
        argv.addAll(names);
        // rpm -q exits with the number of names not installed and prints "package X is not installed" for each.
        Commands.Result r = commands.run(argv, QUERY);
        Set<String> installed = new HashSet<>();
        for (String line : r.stdout().split("\n")) {
            String name = line.strip();
            if (!name.isEmpty() && !name.contains(" ")) {
                installed.add(name);
            }
        }
        return names.stream().filter(n -> !installed.contains(n)).toList();
    }

    @Override
    public void install(List<String> names) throws SystemException {
        if (names.isEmpty()) {
            return;
        }
        List<String> argv = new ArrayList<>(List.of("dnf", "install", "-y", "-q", "--setopt=install_weak_deps=False"));
        argv.addAll(names);
        commands.runChecked(argv, INSTALL);
    }

    /** The machine's own package manager: dnf where it is installed and apt is not, else apt. */
    public static Packages forMachine(Commands commands) {
        boolean dnf = Files.isExecutable(Path.of("/usr/bin/dnf"));
        boolean apt = Files.isExecutable(Path.of("/usr/bin/apt-get"));
        return dnf && !apt ? new DnfPackages(commands) : new AptPackages(commands);
    }
}
