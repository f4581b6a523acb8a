package io.slurmlet.agent.slurm;

import io.slurmlet.agent.slurm.SlurmDiff.FileNow;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.SystemException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs a change of the slurm step waits for, asked of slurmctld or read from this machine's
 * processes: those in a partition the controller's slurm.conf would drop ({@link
 * SlurmDiff.Seen#partitionJobs}), and those that still need a daemon the plan retires ({@link
 * SlurmDiff.Seen#leftovers}). Not knowing is never taken for none: a question slurmctld does not
 * answer stands in the list as its error.
 */
final class JobsWaitedFor {

    /** Every job slurmctld has, in any state but ended, by id. */
    static final List<String> EVERY_JOB = List.of("squeue", "-h", "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i");

    private final Commands commands;
    /** The machine's processes: the jobs that run here, which an old slurmd is kept for. */
    private final HostFiles host;

    JobsWaitedFor(Commands commands, HostFiles host) {
        this.commands = commands;
        this.host = host;
    }

    /**
     * Each daemon the plan retires that runs or is enabled here from slurmlet's slurm.conf, with what
     * still needs it: for slurmctld, the jobs its queue holds, asked of it through the slurm.conf
     * that names this machine the controller (one that names another cannot ask it: kept, said so);
     * for slurmd, the jobs that run on this machine. A site's own daemons (a slurm.conf slurmlet did
     * not write) are left alone, and not listed.
     */
    Map<String, List<String>> leftovers(Wanted wanted, Map<String, FileNow> now, MachineNow.Daemons daemons) {
        FileNow conf = now.get(SlurmDiff.SLURM_CONF);
        Map<String, List<String>> leftovers = new LinkedHashMap<>();
        if (conf == null || !Retiring.ours(conf.content())) {
            return leftovers;
        }
        for (String unit : wanted.retired()) {
            if (!daemons.running().contains(unit) && !daemons.enabled().contains(unit)) {
                continue;
            }
            leftovers.put(
                    unit, !daemons.running().contains(unit) ? List.of() : needing(unit, wanted.node(), conf.content()));
        }
        return leftovers;
    }

    /** The jobs that still need {@code unit}, a daemon about to be retired; none: it can go. */
    List<String> needing(String unit, String node, String slurmConf) {
        if (unit.equals("slurmd")) {
            return LocalJobs.running(host).stream()
                    .map(id -> "job " + id + " runs here")
                    .toList();
        }
        Optional<String> controller = Retiring.controllerOf(slurmConf);
        if (controller.isEmpty() || !controller.get().equals(node)) {
            return List.of(
                    "its queue cannot be asked, as slurm.conf here names %s the controller: stop it by hand once it holds no job"
                            .formatted(controller.orElse("no host")));
        }
        return jobIds(EVERY_JOB).stream()
                .map(j -> j.startsWith("its jobs") ? j : "job " + j)
                .toList();
    }

    /**
     * The jobs slurmctld has, in any state but ended, in each of {@code partitions}; one it cannot be
     * asked has the error instead. With {@code everyJob} (slurm.conf loads job_submit/all_partitions)
     * every job: each one submitted without a partition names them all, and squeue shows a running
     * job in the one partition it runs in only, while Slurm fails it when any other it named goes.
     */
    Map<String, List<String>> inPartitions(List<String> partitions, boolean everyJob) {
        Map<String, List<String>> jobs = new LinkedHashMap<>();
        // With every job asked for, one squeue answers for every partition that goes.
        Map<List<String>, List<String>> asked = new HashMap<>();
        for (String partition : partitions) {
            List<String> argv = everyJob
                    ? EVERY_JOB
                    : List.of("squeue", "-h", "-p", partition, "-t", "PD,R,S,CG,CF,RQ,RS,ST", "-o", "%i");
            List<String> found = asked.computeIfAbsent(argv, this::jobIds);
            if (!found.isEmpty()) {
                jobs.put(partition, found);
            }
        }
        return jobs;
    }

    /** The job ids {@code squeue} prints, the first five named; the error instead where slurmctld cannot be asked. */
    private List<String> jobIds(List<String> squeue) {
        try {
            List<String> ids = commands.runChecked(squeue, SlurmStep.RECONFIGURE_DEADLINE)
                    .stdout()
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty())
                    .toList();
            return ids.size() > 5 ? List.of(String.join(", ", ids.subList(0, 5)) + ", …") : ids;
        } catch (SystemException e) {
            // Not knowing is not "none": the file waits until slurmctld can say.
            return List.of("its jobs cannot be asked for: " + e.getMessage());
        }
    }
}
