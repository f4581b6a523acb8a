package io.slurmlet.agent.node;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.containers.ContainersStep;
import io.slurmlet.agent.containers.Fetcher;
import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.agent.munge.MungeStep;
import io.slurmlet.agent.packages.PackagesStep;
import io.slurmlet.agent.pam.PamStep;
import io.slurmlet.agent.reconcile.HoldsDaemonsBack;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.slurm.NodeStatesStep;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.agent.steps.StepGraph;
import io.slurmlet.agent.storage.StorageStep;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.users.UsersStep;
import io.slurmlet.model.observed.Observed;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The node role's steps, built once from the machine's ports, in the order of the step graph
 * ({@link StepGraph}, which the leader's preview walks too). Health, status and {@code ctl slurm
 * status} take the names from here.
 *
 * @param facts      the machine's facts, reported before every poll
 * @param steps      the reconcile steps, in the order a pass runs them
 * @param nodeStates the last of them, which the controller's reclaim watch also runs between passes
 * @param hostFiles  the machine's own files, where the jobs watch reads which jobs run here
 * @param services   systemd, where the daemon watch looks
 */
record NodeWiring(
        FactsStep facts, List<Step> steps, NodeStatesStep nodeStates, HostFiles hostFiles, Services services) {

    /**
     * @param root       where the machine's files are (/ but in tests)
     * @param stateDir   the agent's own state (what steps keep between passes)
     * @param adminGroup the group that gets in by ssh without a job
     * @param leaderClock the leader's clock as this machine measures it: a munge key's switch waits by it
     * @param leader     the leader this machine follows, for the files of jobs in containers it holds
     */
    static NodeWiring of(
            Ports p,
            String node,
            Path root,
            Path stateDir,
            Optional<String> adminGroup,
            InstantSource leaderClock,
            Fetcher.FromLeader leader) {
        NodeStatesStep nodeStates = new NodeStatesStep(p.commands());
        FactsCollector collector = new FactsCollector(p.commands(), p.hostFiles());
        return new NodeWiring(
                new FactsStep(collector::collect, node),
                // In the step graph's order, which also says what each waits for.
                StepGraph.inOrder(List.of(
                        new PackagesStep(p.packages()),
                        new MungeStep(p.files(), p.services(), root, leaderClock),
                        new StorageStep(p.files(), p.hostFiles(), p.services(), p.commands(), root),
                        new UsersStep(p.users(), root),
                        new SlurmStep(p.files(), p.services(), p.commands(), root, stateDir, p.hostFiles()),
                        new PamStep(p.files(), p.services(), root, stateDir, adminGroup),
                        ContainersStep.onMachine(p.files(), p.commands(), root, stateDir, leader),
                        nodeStates)),
                nodeStates,
                p.hostFiles(),
                p.services());
    }

    static NodeWiring of(
            Ports p, AgentConfig config, String node, InstantSource leaderClock, Fetcher.FromLeader leader) {
        return of(
                p, node, config.node().root(), config.stateDir(), config.node().adminGroup(), leaderClock, leader);
    }

    /**
     * What the steps that report last saw of the machine, for the report (a step not looked yet
     * leaves its section empty), and the jobs that run here now.
     */
    Observed observed(List<String> jobs) {
        Observed report = Observed.NOTHING.withJobs(jobs);
        for (Step s : steps) {
            if (s instanceof Reports r) {
                report = r.reportInto(report);
            }
        }
        return report;
    }

    /**
     * Whether a step's last pass left Slurm's daemons as they were, not as the plan has them (a
     * plugin its plugstack.conf requires is missing here): the daemon watch leaves them alone then.
     */
    boolean daemonsHeldBack() {
        return steps.stream().anyMatch(s -> s instanceof HoldsDaemonsBack h && h.holdsDaemonsBack());
    }

    /** Every name that status reports and health checks, facts first, in the order they run, the daemon watch last. */
    List<String> names() {
        List<String> names = new ArrayList<>();
        names.add(FactsStep.NAME);
        steps.forEach(s -> names.add(s.name()));
        names.add(DaemonWatch.NAME);
        return List.copyOf(names);
    }
}
