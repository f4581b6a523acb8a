package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.slurm.SlurmDiff.FileNow;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The slurm step's looks at the machine, through the ports and changing nothing: Slurm's files as
 * they are (text, mode, owner), the daemons' restart drop-ins, and which units run and are enabled.
 */
final class MachineNow {

    private final Files files;
    private final Services services;
    private final Path root;

    MachineNow(Files files, Services services, Path root) {
        this.files = files;
        this.services = services;
        this.root = root;
    }

    /** Each of {@code paths} that exists, as it is. */
    Map<String, FileNow> files(List<String> paths) throws IOException {
        Map<String, FileNow> now = new LinkedHashMap<>();
        try {
            for (String path : paths) {
                Optional<Files.Stat> st = files.stat(ManagedFiles.under(root, path));
                if (st.isPresent()) {
                    now.put(
                            path,
                            new FileNow(
                                    new String(st.get().content(), StandardCharsets.UTF_8),
                                    st.get().mode(),
                                    st.get().owner(),
                                    st.get().group()));
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot read Slurm's files: " + e.getMessage(), e);
        }
        return now;
    }

    /** Each of the plan's daemons' restart drop-in, as it is, where it exists. */
    Map<String, FileNow> dropIns(Wanted wanted) throws IOException {
        Map<String, FileNow> now =
                files(wanted.daemons().stream().map(RestartDropIn::path).toList());
        Map<String, FileNow> dropIns = new LinkedHashMap<>();
        for (String unit : wanted.daemons()) {
            FileNow f = now.get(RestartDropIn.path(unit));
            if (f != null) {
                dropIns.put(unit, f);
            }
        }
        return dropIns;
    }

    /** Which of {@code units} run, and which are enabled. */
    record Daemons(Set<String> running, Set<String> enabled) {}

    Daemons daemons(Collection<String> units) throws SystemException {
        Set<String> running = new HashSet<>();
        Set<String> enabled = new HashSet<>();
        for (String unit : units) {
            if (services.isActive(unit)) {
                running.add(unit);
            }
            if (services.isEnabled(unit)) {
                enabled.add(unit);
            }
        }
        return new Daemons(running, enabled);
    }
}
