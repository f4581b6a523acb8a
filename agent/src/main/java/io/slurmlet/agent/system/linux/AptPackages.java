package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.SystemException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link Packages} on Debian and Ubuntu: dpkg-query says what is installed; apt-get installs what
 * is missing, non-interactively, keeping the site's configuration files.
 */
public final class AptPackages implements Packages {

    static final Duration QUERY = Duration.ofSeconds(30);
    static final Duration INSTALL = Duration.ofMinutes(15);

    private final Commands commands;

    public AptPackages(Commands commands) {
        this.commands = commands;
    }

    @Override
    public List<String> missing(List<String> names) throws SystemException {
        if (names.isEmpty()) {
            return List.of();
        }
        List<String> argv = new ArrayList<>(List.of("dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\\n"));
        argv.addAll(names);
        // dpkg-query exits 1 when a name is unknown to dpkg: that one is simply missing.
        Commands.Result r = commands.run(argv, QUERY);
        Set<String> installed = new HashSet<>();
        for (String line : r.stdout().split("\n")) {
            String[] words = line.strip().split(" ");
            if (words.length == 2 && words[1].equals("installed")) {
                installed.add(words[0]);
            }
        }
        return names.stream().filter(n -> !installed.contains(n)).toList();
    }

    @Override
    public void install(List<String> names) throws SystemException {
        if (names.isEmpty()) {
            return;
        }
        List<String> argv = new ArrayList<>(List.of(
                "env",
                "DEBIAN_FRONTEND=noninteractive",
                "apt-get",
                "install",
                "-y",
                "-q",
                "--no-install-recommends",
                "-o",
                "Dpkg::Options::=--force-confold"));
        argv.addAll(names);
        commands.runChecked(argv, INSTALL);
    }
}
