package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.SystemException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A package manager in memory, with a log of installs. */
public final class FakePackages implements Packages {

    public final Set<String> installed = new HashSet<>();
    public final List<String> log = new ArrayList<>();
    public boolean broken;

    @Override
    public List<String> missing(List<String> names) {
        return names.stream().filter(n -> !installed.contains(n)).toList();
    }

    @Override
    public void install(List<String> names) throws SystemException {
        log.add("install " + String.join(" ", names));
        if (broken) {
            throw new SystemException(
                    "`apt-get install -y slurmd` exited with status 100; it printed: E: Unable to locate package slurmd");
        }
        installed.addAll(names);
    }
}
