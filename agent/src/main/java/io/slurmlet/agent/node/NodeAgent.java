package io.slurmlet.agent.node;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.agent.leader.AgentCredentials;
import io.slurmlet.agent.leader.LeaderStartup;
import io.slurmlet.agent.leader.Pki;
import io.slurmlet.agent.munge.MungeStep;
import io.slurmlet.agent.packages.PackagesStep;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.slurm.NodeStatesStep;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.linux.DnfPackages;
import io.slurmlet.agent.system.linux.LinuxUsers;
import io.slurmlet.agent.users.UsersStep;
import io.slurmlet.agent.storage.StorageStep;
import io.slurmlet.agent.pam.PamStep;
import io.slurmlet.agent.system.linux.LinuxCommands;
import io.slurmlet.agent.system.linux.LinuxFiles;
import io.slurmlet.agent.system.linux.LinuxHostFiles;
import io.slurmlet.agent.system.linux.SystemdServices;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.PublishedPlan;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node role, on every machine: joins the leader once, then reports the machine's facts,
 * long-polls its plan and applies it through the reconcile steps (facts, packages, munge, storage, users, slurm, pam, nodestates),
 * posting what each did. A new plan is applied at once; the same plan again every
 * {@code slurmlet.node.resync}, which repairs what drifted (a daemon someone stopped). With the leader
 * unreachable it changes nothing and waits: Slurm keeps running as it was.
 */
@ApplicationScoped
public class NodeAgent {

    /** The steps, in the order they run; health has one check each. */
    public static final List<String> STEPS = List.of("facts", "packages", "munge", "storage", "users", "slurm", "pam", "nodestates");

    /** How often the controller looks at Slurm's node states while a node is being reclaimed (its last job may end any time). */
    static final Duration RECLAIM_WATCH = Duration.ofSeconds(2);
    static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(5);

    private static final Logger LOG = Logger.getLogger(NodeAgent.class);
    /** Retries of an unreachable leader back off to this, with up to a second of jitter so many machines do not call at once. */
    private static final Duration LONGEST_BACKOFF = Duration.ofSeconds(10);

    @Inject
    AgentConfig config;

    @Inject
    Instance<LeaderStartup> leader;

    @Inject
    Instance<AgentCredentials> credentials;

    @Inject
    Instance<Pki> pki;

    private final Map<String, StepStatus> steps = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Thread thread;
    private volatile boolean stopping;
    private volatile long passes;
    private int failedPasses;
    private NodeStatesStep nodeStates;

    void start(@Observes StartupEvent event) {
        if (!config.node().enabled()) {
            return;
        }
        thread = new Thread(this::run, "slurmlet-node");
        thread.setDaemon(true);
        thread.start();
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Each step's last outcome; empty for a step that has not run. */
    public Optional<StepStatus> step(String name) {
        return Optional.ofNullable(steps.get(name));
    }

    public boolean enabled() {
        return config.node().enabled();
    }

    /** How many reconcile passes ran since start, for tests and figures. */
    public long passes() {
        return passes;
    }

    private void run() {
        String name = config.node().name().orElseGet(NodeAgent::shortHostName);
        Commands commands = new LinuxCommands();
        LinuxFiles files = new LinuxFiles();
        SystemdServices services = new SystemdServices(commands);
        Path root = config.node().root();
        FactsCollector collector = new FactsCollector(commands, new LinuxHostFiles());
        nodeStates = new NodeStatesStep(commands);
        List<Step> reconcile = List.of(new PackagesStep(DnfPackages.forMachine(commands)), new MungeStep(files, services, root),
                new StorageStep(files, new LinuxHostFiles(), services, commands, root), new UsersStep(new LinuxUsers(commands), files, root), new SlurmStep(files, services, commands, root, config.stateDir()),
                new PamStep(files, services, root, config.stateDir(), config.node().adminGroup()), nodeStates);
        Duration backoff = Duration.ofSeconds(1);
        String lastProblem = "";
        NodeState state = null;
        while (state == null && !stopping) {
            try {
                state = NodeState.open(config.stateDir());
            } catch (IOException e) {
                lastProblem = report("the node role cannot open its state in %s (%s)".formatted(config.stateDir(), e.getMessage()),
                        lastProblem);
                backoff = sleep(backoff);
            }
        }
        if (state == null) {
            return;
        }
        LeaderLink link = null;
        NodeFacts reported = null;
        Optional<PublishedPlan> plan = Optional.empty();
        boolean fresh = false;
        Instant lastPass = Instant.EPOCH;
        try {
            plan = state.plan();
        } catch (IOException e) {
            LOG.warnf("the last plan on disk cannot be read (%s): waiting for the leader's", e.getMessage());
        }
        while (!stopping) {
            try {
                if (link == null) {
                    link = connect(name, state);
                }
                FactsCollector.Collected collected = collector.collect(name);
                String warnings = String.join("; ", collected.warnings());
                if (!collected.facts().equals(reported)) {
                    link.reportFacts(collected.facts());
                    reported = collected.facts();
                    record(Outcome.changed("facts", describe(reported) + (warnings.isEmpty() ? "" : "; " + warnings)));
                } else {
                    record(Outcome.unchanged("facts", describe(reported) + (warnings.isEmpty() ? "" : "; " + warnings)));
                }
                if (!lastProblem.isEmpty()) {
                    // A leader that was away (restarted, perhaps) learns at once how this machine stands.
                    LOG.infof("the leader answers again");
                    lastProblem = "";
                    if (plan.isPresent() && passes > 0) {
                        link.postStatus(report(plan.get()));
                    }
                }
                Duration dueIn = nextPassIn(failedPasses, config.node().resync());
                if (plan.isPresent() && (fresh || Instant.now().isAfter(lastPass.plus(dueIn)))) {
                    pass(link, plan.get(), reconcile);
                    lastPass = Instant.now();
                    fresh = false;
                } else if (plan.isPresent() && reclaiming(plan.get())) {
                    watch(link, plan.get());
                }
                Duration wait = plan.isPresent() && reclaiming(plan.get()) ? RECLAIM_WATCH : config.node().pollWait();
                if (failedPasses > 0 && dueIn.compareTo(wait) < 0) {
                    wait = dueIn;
                }
                Optional<PublishedPlan> next = link.poll(plan.map(PublishedPlan::revision).orElse(0L), wait);
                if (next.isPresent()) {
                    // A plan the leader hands out is applied at once, even one equal to ours (a
                    // restarted leader numbers plans anew): applying it again changes nothing.
                    state.savePlan(next.get());
                    plan = next;
                    fresh = true;
                }
                backoff = Duration.ofSeconds(1);
            } catch (InterruptedException e) {
                return;
            } catch (LeaderLink.Refused e) {
                if (e.status() == 401 && link != null) {
                    try {
                        state.forgetCredential();
                    } catch (IOException ignored) {
                        // the next join overwrites it
                    }
                    link = null;
                }
                lastProblem = report(e.getMessage(), lastProblem);
                backoff = sleep(backoff);
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                lastProblem = report(e.getMessage() == null ? e.toString() : e.getMessage(), lastProblem);
                backoff = sleep(backoff);
            } catch (Error e) {
                LOG.errorf(e, "the node role stopped: %s", e.getMessage());
                throw e;
            }
        }
    }

    /** A joined link: from the state on disk, by joining with the token, or on the leader's own machine in-process. */
    private LeaderLink connect(String name, NodeState state) throws IOException, InterruptedException, GeneralSecurityException {
        URI base;
        if (config.isLeader() && config.node().leader().isEmpty()) {
            int port = leader.get().agentPort();
            if (port == 0) {
                throw new IOException("the leader's agents' channel is not open yet");
            }
            base = URI.create("https://127.0.0.1:" + port);
        } else {
            base = URI.create(config.node().leader().orElseThrow(() -> new IOException(
                    "this machine has no leader to join: set slurmlet.node.leader, slurmlet.node.join-token and "
                            + "slurmlet.node.ca-hash (ctl slurm join-token on the leader prints them)")));
        }
        Optional<NodeState.Joined> joined = state.joined();
        if (joined.isPresent()) {
            return new LeaderLink(base, joined.get().ca(), joined.get().credential());
        }
        if (config.isLeader()) {
            String credential = credentials.get().issue(name);
            state.saveJoined(Pki.readCertificate(pki.get().caFile()), credential);
            LOG.infof("%s joined its own leader", name);
        } else {
            String token = config.node().joinToken().orElseThrow(() -> new IOException(
                    "this machine has not joined yet and has no join token: set slurmlet.node.join-token (ctl slurm join-token on the leader prints it)"));
            String hash = config.node().caHash().orElseThrow(() -> new IOException(
                    "this machine has not joined yet and no CA pin is set: set slurmlet.node.ca-hash (ctl slurm join-token on the leader prints it)"));
            var ca = LeaderLink.fetchPinnedCa(base, hash);
            var reply = LeaderLink.join(base, ca, token, name);
            state.saveJoined(ca, reply.credential());
            LOG.infof("%s joined the leader at %s (CA %s)", name, base, hash);
        }
        NodeState.Joined now = state.joined().orElseThrow();
        return new LeaderLink(base, now.ca(), now.credential());
    }

    /**
     * When the next pass is due without a new plan: after a pass with a failed step (a mount whose
     * server was not exporting yet, a daemon that did not start) again in 5 s, doubling up to the
     * resync interval; else at the resync interval.
     */
    static Duration nextPassIn(int failedPasses, Duration resync) {
        if (failedPasses == 0) {
            return resync;
        }
        Duration retry = RETRY_AFTER_FAILURE.multipliedBy(1L << Math.min(failedPasses - 1, 10));
        return retry.compareTo(resync) < 0 ? retry : resync;
    }

    private void pass(LeaderLink link, PublishedPlan plan, List<Step> reconcile) throws IOException, InterruptedException {
        long started = System.nanoTime();
        List<String> changed = new ArrayList<>();
        for (Step step : reconcile) {
            Outcome outcome;
            try {
                outcome = step.apply(plan.plan());
            } catch (RuntimeException e) {
                outcome = Outcome.failed(step.name(), "the step failed unexpectedly: " + e);
            }
            record(outcome);
            if (outcome.kind() != Outcome.Kind.UNCHANGED) {
                changed.add(outcome.step() + " " + outcome.kind().name().toLowerCase(java.util.Locale.ROOT));
            }
            switch (outcome.kind()) {
                case CHANGED -> LOG.infof("%s: %s", outcome.step(), outcome.detail());
                case FAILED -> LOG.warnf("%s failed: %s", outcome.step(), outcome.detail());
                default -> { }
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (passes == 0 || !changed.isEmpty()) {
            LOG.infof("pass %d of plan %d in %d ms: %s", passes + 1, plan.revision(), millis,
                    changed.isEmpty() ? "nothing to change" : String.join(", ", changed));
        } else {
            LOG.debugf("pass %d of plan %d in %d ms: nothing to change", passes + 1, plan.revision(), millis);
        }
        passes++;
        failedPasses = changed.stream().anyMatch(c -> c.endsWith(" failed")) ? failedPasses + 1 : 0;
        link.postStatus(report(plan));
    }

    private NodeReport report(PublishedPlan plan) {
        List<StepStatus> report = new ArrayList<>();
        for (String name : STEPS) {
            step(name).ifPresent(report::add);
        }
        return new NodeReport(plan.plan().node(), plan.revision(), report, nodeStates.seen());
    }

    /** The controller holds a node being reclaimed: the leader waits for its jobs to end. */
    private static boolean reclaiming(PublishedPlan plan) {
        return plan.plan().nodeStates().values().stream().anyMatch(v -> v.endsWith(Planner.RECLAIMING));
    }

    /** Between passes, on the controller: Slurm's node states again, posted when they changed. */
    private void watch(LeaderLink link, PublishedPlan plan) throws IOException, InterruptedException {
        List<SlurmNodeState> before = nodeStates.seen();
        Outcome outcome = nodeStates.apply(plan.plan());
        record(outcome);
        if (outcome.kind() != Outcome.Kind.UNCHANGED) {
            LOG.infof("%s: %s", outcome.step(), outcome.detail());
        }
        if (!before.equals(nodeStates.seen()) || outcome.kind() != Outcome.Kind.UNCHANGED) {
            link.postStatus(report(plan));
        }
    }

    private void record(Outcome outcome) {
        String now = Instant.now().toString();
        StepStatus before = steps.get(outcome.step());
        String lastError = before == null ? "" : before.lastError();
        String lastErrorAt = before == null ? "" : before.lastErrorAt();
        if (outcome.failed()) {
            lastError = outcome.detail();
            lastErrorAt = now;
        }
        steps.put(outcome.step(), new StepStatus(outcome.step(), outcome.kind().name().toLowerCase(java.util.Locale.ROOT),
                outcome.detail(), now, lastError, lastErrorAt));
    }

    private static String describe(NodeFacts f) {
        return "%d CPUs, %d MiB, %d GPUs, %s, Slurm %s".formatted(f.cpus(), f.memoryMiB(), f.gpuCount(),
                f.os().isEmpty() ? "OS unknown" : f.os(), f.slurmVersion().isEmpty() ? "not installed" : f.slurmVersion());
    }

    /** Logs a problem with the leader once, not at every retry. */
    private static String report(String problem, String last) {
        if (!problem.equals(last)) {
            LOG.warnf("%s; changing nothing on this machine until the leader answers", problem);
        }
        return problem;
    }

    private Duration sleep(Duration backoff) {
        try {
            Thread.sleep(backoff.toMillis() + java.util.concurrent.ThreadLocalRandom.current().nextLong(1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
        Duration next = backoff.multipliedBy(2);
        return next.compareTo(LONGEST_BACKOFF) > 0 ? LONGEST_BACKOFF : next;
    }

    /** The kernel's host name, without its domain: no lookup that could hang on a resolver. */
    static String shortHostName() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip().split("\\.")[0];
        } catch (IOException e) {
            return System.getenv().getOrDefault("HOSTNAME", "localhost").split("\\.")[0];
        }
    }
}
