package io.slurmlet.agent.slurm.conf;

import io.slurmlet.model.settings.Problem;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Slurm's files for one controller version, or why they cannot be made.
 *
 * @param generator the release family the files were written for, as {@code 25.11}
 * @param files     file name → content, in a stable order: slurm.conf, cgroup.conf, gres.conf, plugstack.conf;
 *                  empty when there are problems
 * @param problems  what stops the files being made (a version slurmlet cannot write for, a setting the
 *                  version does not have), each naming key, value and fix
 * @param notes     what status should say: nodes left out until they report, a newer Slurm than any generator
 * @param machines  the machines slurm.conf names, each once: the controller, then the nodes in its order
 *                  (who the shared storage's server exports to); empty without files
 * @param memoryClasses the memory classes (MiB per CPU) slurm.conf has a partition for: the leader keeps
 *                  them before it sends the files, so no later slurm.conf loses one
 */
public record Rendered(
        String generator,
        Map<String, String> files,
        List<Problem> problems,
        List<String> notes,
        List<String> machines,
        Set<Long> memoryClasses) {

    public Rendered {
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
        problems = List.copyOf(problems);
        notes = List.copyOf(notes);
        machines = List.copyOf(machines);
        memoryClasses = Collections.unmodifiableSortedSet(new TreeSet<>(memoryClasses));
    }

    /** No files: nothing named. */
    public Rendered(String generator, Map<String, String> files, List<Problem> problems, List<String> notes) {
        this(generator, files, problems, notes, List.of(), Set.of());
    }

    public boolean ok() {
        return problems.isEmpty();
    }
}
