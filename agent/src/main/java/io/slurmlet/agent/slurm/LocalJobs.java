package io.slurmlet.agent.slurm;

import io.slurmlet.agent.system.HostFiles;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Slurm jobs that run on this machine, from its processes: every job step has a slurmstepd,
 * which names the job in its title ({@code slurmstepd: [12.batch]}, {@code [12.extern]},
 * {@code [12.0]}); only root's count, as any user may name a process so. It asks neither slurmctld nor slurmd, so it answers while they are down or
 * restarting, and for a machine Slurm no longer lists; a job whose slurmd was stopped still counts.
 */
public final class LocalJobs {

    private static final Pattern TITLE = Pattern.compile("^slurmstepd: \\[(\\d{1,10})[._]");
    private static final Pattern ROOT = Pattern.compile("(?m)^Uid:\\s+0\\s");
    private static final Pattern PID = Pattern.compile("\\d+");

    private LocalJobs() {}

    /** The ids of the jobs with a step here, in order; a process that ends while it is read is left out. */
    public static List<String> running(HostFiles host) {
        TreeSet<Long> jobs = new TreeSet<>();
        for (Path proc : host.list(Path.of("/proc"))) {
            if (!PID.matcher(proc.getFileName().toString()).matches()) {
                continue;
            }
            Optional<String> comm;
            Optional<String> cmdline;
            try {
                comm = host.read(proc.resolve("comm"));
                if (comm.isEmpty() || !comm.get().strip().equals("slurmstepd")) {
                    continue;
                }
                // Any user may name a process slurmstepd; Slurm's run as root.
                if (!ROOT.matcher(host.read(proc.resolve("status")).orElse("")).find()) {
                    continue;
                }
                cmdline = host.read(proc.resolve("cmdline"));
            } catch (UncheckedIOException e) {
                continue; // it ended while being read
            }
            Matcher m = TITLE.matcher(cmdline.orElse("").replace('\0', ' '));
            if (m.find()) {
                jobs.add(Long.parseLong(m.group(1)));
            }
        }
        return jobs.stream().map(String::valueOf).toList();
    }
}
