package io.slurmlet.agent.slurm;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code scontrol reconfigure} takes while slurmctld and the slurmds run, per Slurm release,
 * as measured on the real daemons of Debian's 22.05, 24.11 and 26.05 with a job running
 * ({@code system-tests/slurm/try-reconfigure}; system-tests/slurm/FINDINGS.md, "Reconfigure or
 * restart, per version"). No measured change needed every slurmd restarted. Releases between 22.05
 * and 24.11 were not measured and are taken as 22.05 (a slurmctld restart saves its state and
 * ends no job; a reconfigure 22.05 cannot take ends slurmctld).
 */
public final class ReconfigureTable {

    /** A kind of change to Slurm's files, as the table's rows have them. */
    public enum Change {
        /** A NodeName line added or removed (the cluster's node set). */
        NODE_SET,
        SELECT_TYPE_PARAMETERS,
        /** A partition's Nodes= list. */
        PARTITION_NODES,
        /** A node's RealMemory on its NodeName line. */
        NODE_MEMORY,
        /** MaxJobCount, MessageTimeout and the like. */
        PLAIN_KEY,
        PROLOG_FLAGS,
        PROCTRACK_TYPE,
        TASK_PLUGIN,
        CGROUP_CONF
    }

    /** What the daemons need for a change to be in effect. */
    public enum Need {
        RECONFIGURE,
        /** slurmctld must be restarted: a reconfigure is refused, or ends slurmctld (22.05's node set). */
        SLURMCTLD_RESTART
    }

    /** Per measured release, the changes a reconfigure does not take; every other change it takes. */
    static final Map<String, Map<Change, Need>> MEASURED = Map.of(
            "22.05",
                    Map.of(
                            Change.NODE_SET,
                            Need.SLURMCTLD_RESTART,
                            Change.SELECT_TYPE_PARAMETERS,
                            Need.SLURMCTLD_RESTART),
            "24.11", Map.of(),
            "26.05", Map.of());

    private static final Pattern GENERATOR =
            Pattern.compile("written by slurmlet, with its generator for Slurm (\\d+\\.\\d+)\\.");
    private static final Pattern NODE_NAME = Pattern.compile("(?m)^NodeName=(\\S+)");

    private ReconfigureTable() {}

    /** What {@code change} needs on a cluster whose files were written for {@code release}. */
    public static Need need(SlurmVersion release, Change change) {
        String row = release.atLeast(24, 11) ? (release.atLeast(26, 5) ? "26.05" : "24.11") : "22.05";
        return MEASURED.get(row).getOrDefault(change, Need.RECONFIGURE);
    }

    /**
     * The release a slurm.conf of slurmlet's was written for, from its first line (until the plan
     * carries the controller's release as a field of its own).
     */
    static Optional<SlurmVersion> releaseOf(String slurmConf) {
        Matcher m = GENERATOR.matcher(slurmConf.lines().findFirst().orElse(""));
        return m.find() ? SlurmVersion.parse(m.group(1)) : Optional.empty();
    }

    /** The nodes a slurm.conf's NodeName lines name, each host list expanded, in order. */
    public static List<String> nodeNames(String slurmConf) {
        return NODE_NAME
                .matcher(slurmConf)
                .results()
                .flatMap(r -> HostList.expand(r.group(1)).stream())
                .toList();
    }
}
