package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.slurm.SlurmDiff.FileNow;
import io.slurmlet.agent.slurm.SlurmDiff.Seen;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.agent.slurm.conf.Layout;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.plan.ManagedFile;
import io.slurmlet.model.plan.NodePlan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files part of {@link SlurmDiff#diff}: Slurm's files as this pass writes them, and which of
 * them differ from what the machine holds. The plan's files, but for two that the machine's own
 * state decides: the cluster's name in slurmctld's state, kept with what slurmctld wrote after it,
 * and the controller's slurm.conf, kept as it is while a partition it would drop holds jobs.
 *
 * @param wanted  the plan, with its files as they are written here
 * @param written each file whose content changes, by path, with what it holds now ("" when absent):
 *                the daemons act on these ({@link RestartRules#effects})
 * @param write   the files that differ in content, mode or owner; empty where none does
 * @param held    a sentence for each partition that keeps the controller's slurm.conf as it is
 */
record FileWrites(Wanted wanted, Map<String, String> written, Optional<WriteFiles> write, List<String> held) {

    /**
     * Where slurmctld keeps the name of the cluster its saved state belongs to. slurmctld refuses to
     * start when it differs from slurm.conf's ClusterName ("slurmctld has been started with
     * ClusterName=prod, but read slurmlet from the state files in StateSaveLocation"), though a
     * reconfigure takes the new name: so on the controller it is one of the step's files, the name
     * as slurmctld writes it (no newline, 0644, SlurmUser's), and a rename never leaves a slurmctld
     * that cannot start again. It is written only where it exists: slurmctld writes it at its first start.
     */
    static final String CLUSTER_NAME_FILE = Layout.DEBIAN.stateSaveLocation() + "/clustername";

    private static final Pattern CLUSTER_NAME = Pattern.compile("(?m)^ClusterName=(\\S+)$");

    /** The cluster's name, from the plan's slurm.conf, as the file {@link #CLUSTER_NAME_FILE}; empty where it has none. */
    static Optional<ManagedFile> clusterName(NodePlan plan) {
        Matcher name = CLUSTER_NAME.matcher(plan.files().getOrDefault(SlurmDiff.SLURM_CONF, ""));
        return name.find()
                ? Optional.of(new ManagedFile(CLUSTER_NAME_FILE, name.group(1), "0644", "slurm", "slurm", false))
                : Optional.empty();
    }

    static FileWrites of(Wanted plan, Seen seen) {
        // The cluster's name in slurmctld's state is kept only once slurmctld wrote it (at its first start it writes
        // its own), and only its name: 24.11 and later keep the cluster's id after it ("slurmlet|1605"), which stays.
        List<ManagedFile> files = new ArrayList<>();
        for (ManagedFile f : plan.files()) {
            FileNow now = seen.files().get(f.path());
            if (!f.path().equals(CLUSTER_NAME_FILE)) {
                files.add(f);
            } else if (now != null) {
                int bar = now.content().indexOf('|');
                files.add(new ManagedFile(
                        f.path(),
                        f.content() + (bar < 0 ? "" : now.content().substring(bar)),
                        f.mode(),
                        f.owner(),
                        f.group(),
                        false));
            }
        }
        List<String> held = new ArrayList<>();
        if (plan.controls() && !seen.partitionJobs().isEmpty()) {
            // The controller keeps its slurm.conf until the partitions it would drop hold no job: slurmctld reads
            // only that one for partitions (the compute nodes' copies do not matter to it).
            FileNow now = seen.files().get(SlurmDiff.SLURM_CONF);
            files.replaceAll(f -> f.path().equals(SlurmDiff.SLURM_CONF)
                    ? new ManagedFile(f.path(), now.content(), f.mode(), f.owner(), f.group(), f.secret())
                    : f);
            seen.partitionJobs()
                    .forEach((partition, jobs) ->
                            held.add(("the partition %s leaves slurm.conf here once no job is in it "
                                            + "(%s): Slurm ends the jobs of a partition that goes")
                                    .formatted(partition, String.join(", ", jobs))));
        }
        Wanted wanted = new Wanted(
                plan.role(),
                files,
                plan.services(),
                plan.controls(),
                plan.node(),
                plan.retired(),
                plan.keysGeneration());
        // The daemons act on a change of content only; a file whose mode or owner alone differs is written again,
        // nothing more.
        Map<String, String> written = new TreeMap<>();
        Set<String> rewritten = new HashSet<>();
        for (ManagedFile f : wanted.files()) {
            FileNow now = seen.files().get(f.path());
            if (now == null || !now.content().equals(f.content())) {
                written.put(f.path(), now == null ? "" : now.content());
            } else if (!now.holds(f)) {
                rewritten.add(f.path());
            }
        }
        List<ManagedFile> writes = new ArrayList<>();
        Map<String, Optional<String>> before = new LinkedHashMap<>();
        for (ManagedFile f : wanted.files()) {
            if (written.containsKey(f.path()) || rewritten.contains(f.path())) {
                FileNow now = seen.files().get(f.path());
                writes.add(f);
                before.put(f.path(), now == null ? Optional.empty() : Optional.of(now.content()));
            }
        }
        return new FileWrites(
                wanted,
                written,
                writes.isEmpty() ? Optional.empty() : Optional.of(new WriteFiles(writes, before)),
                held);
    }

    private static final Pattern PARTITION = Pattern.compile("(?m)^PartitionName=(\\S+)");

    /**
     * The partitions the controller's slurm.conf holds now ({@code seen}) that {@code wanted}'s
     * drops: Slurm ends the jobs of a partition that leaves slurm.conf (a rename is a drop and an add).
     */
    public static List<String> droppedPartitions(Wanted wanted, Map<String, FileNow> seen) {
        FileNow now = seen.get(SlurmDiff.SLURM_CONF);
        if (!wanted.controls() || now == null) {
            return List.of();
        }
        Set<String> kept = partitions(wanted.contents().getOrDefault(SlurmDiff.SLURM_CONF, ""));
        return partitions(now.content()).stream().filter(p -> !kept.contains(p)).toList();
    }

    /** Whether the slurm.conf the machine holds loads job_submit/all_partitions: then every job may name every partition. */
    public static boolean submitsToAll(Map<String, FileNow> seen) {
        FileNow now = seen.get(SlurmDiff.SLURM_CONF);
        return now != null && SUBMITS_TO_ALL.matcher(now.content()).find();
    }

    private static final Pattern SUBMITS_TO_ALL =
            Pattern.compile("(?mi)^\\s*JobSubmitPlugins\\s*=\\s*\"?[^#\\n]*\\ball_partitions\\b");

    private static Set<String> partitions(String slurmConf) {
        Set<String> names = new TreeSet<>();
        Matcher m = PARTITION.matcher(slurmConf);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * Slurm's files that differ, written whole in the plan's order.
     *
     * @param before what each holds now, by path; empty where it does not exist
     */
    record WriteFiles(List<ManagedFile> files, Map<String, Optional<String>> before) implements SlurmAction {
        public String will() {
            return "write "
                    + String.join(", ", files.stream().map(ManagedFile::path).toList());
        }

        public String did() {
            return "wrote "
                    + String.join(
                            ", ",
                            new TreeSet<>(files.stream().map(f -> f.path()).toList())
                                    .stream()
                                            .map(p -> Path.of(p).getFileName().toString())
                                            .toList());
        }

        @Override
        public List<SettingsPreview.FileChange> files(FileDiffs diffs) {
            return files.stream()
                    .map(f -> new SettingsPreview.FileChange(
                            f.path(),
                            before.get(f.path()).isEmpty()
                                    ? SettingsPreview.Change.CREATED
                                    : SettingsPreview.Change.CHANGED,
                            f.secret()
                                    ? null
                                    : diffs.of(f.path(), before.get(f.path()).orElse(null), f.content())))
                    .toList();
        }

        @Override
        public String failed(String error) {
            return "cannot write Slurm's files: " + error;
        }

        @Override
        public String toString() {
            return "WriteFiles" + files;
        }
    }

    /** The files are written (where a test's failpoint holds the agent, to be killed). */
    record FilesWritten() implements SlurmAction {
        public String will() {
            return "";
        }

        public String did() {
            return "";
        }
    }
}
