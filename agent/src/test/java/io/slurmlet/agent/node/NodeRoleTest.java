package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.NodeWish;
import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node role's runner, poller and status poster on fakes: a leader in memory, steps that count,
 * fail, throw or block. What each test waits for, it waits for with a deadline far above what it
 * takes; nothing here measures time.
 */
class NodeRoleTest {

    static PublishedPlan plan(long revision) {
        return plan(revision, Map.of(), Map.of());
    }

    /** The controller's plan: its files, and the node states it is to keep in Slurm. */
    static PublishedPlan plan(long revision, Map<String, String> files, Map<String, NodeWish> nodeStates) {
        return new PublishedPlan(
                revision,
                NodePlan.of("n1", Set.of()).withSlurm(files, List.of()).withNodeStates(nodeStates));
    }

    /** A step that does what it is told and counts its runs. */
    static final class FakeStep implements Step {
        final String name;
        final AtomicInteger runs = new AtomicInteger();
        volatile Outcome.Kind kind = Outcome.Kind.UNCHANGED;
        volatile boolean throwing;
        volatile CountDownLatch hold;
        volatile List<String> waits = List.of();

        FakeStep(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Outcome apply(NodePlan plan) {
            runs.incrementAndGet();
            CountDownLatch h = hold;
            if (h != null) {
                try {
                    h.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (throwing) {
                throw new IllegalStateException("a bug");
            }
            return new Outcome(name, kind, name + " " + kind);
        }

        @Override
        public List<String> waiting() {
            return waits;
        }
    }

    /** The leader in memory: plans to hand out, what it was told, and refusals to make. */
    static final class FakeLeader implements Leader {
        final BlockingQueue<Object> polls = new LinkedBlockingQueue<>();
        final List<NodeReport> statuses = Collections.synchronizedList(new ArrayList<>());
        final List<NodeFacts> facts = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger pollCalls = new AtomicInteger();
        /** The reconnection window its plan answers give. */
        volatile Duration window = Duration.ZERO;

        @Override
        public Duration reconnectWindow() {
            return window;
        }

        /** Reports of facts that fail before one is taken: a leader that is down though the link comes from disk. */
        final AtomicInteger factsDownFor = new AtomicInteger();

        /** Refusals the next reports of facts get, one each: a leader that answers but does not take them. */
        final BlockingQueue<IOException> factsRefusals = new LinkedBlockingQueue<>();

        final AtomicInteger factsCalls = new AtomicInteger();

        @Override
        public void reportFacts(NodeFacts f) throws IOException {
            factsCalls.incrementAndGet();
            if (factsDownFor.getAndDecrement() > 0) {
                throw new IOException("connection refused");
            }
            IOException refusal = factsRefusals.poll();
            if (refusal != null) {
                throw refusal;
            }
            facts.add(f);
        }

        /** Hands out what {@link #polls} holds next: a plan, an exception to throw, or nothing within the wait. */
        @Override
        public Optional<PublishedPlan> poll(long held, Duration wait) throws IOException, InterruptedException {
            pollCalls.incrementAndGet();
            Object next = polls.poll(Math.min(wait.toMillis(), 100), TimeUnit.MILLISECONDS);
            if (next instanceof IOException e) {
                throw e;
            }
            return Optional.ofNullable((PublishedPlan) next);
        }

        @Override
        public Optional<Leader.Time> postStatus(NodeReport report) {
            statuses.add(report);
            return Optional.empty();
        }
    }

    static final NodeFacts FACTS = TestFacts.fourCoresTwoThreads("n1")
            .address("10.0.0.1")
            .memoryMiB(32_000)
            .os("debian 13")
            .slurmVersion("24.11.5")
            .build();

    /** What the facts step finds on the machine. */
    volatile NodeFacts onTheMachine = FACTS;

    final FakeStep first = new FakeStep("first");
    final FakeStep second = new FakeStep("second");
    final StepBook book = new StepBook(List.of("facts", "first", "second"));
    final List<Thread> threads = new ArrayList<>();
    final List<Runnable> stops = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        stops.forEach(Runnable::run);
        for (Thread t : threads) {
            t.interrupt();
            t.join(5000);
        }
    }

    static void await(String what, BooleanSupplier condition) {
        org.awaitility.Awaitility.await(what)
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(10))
                .until(condition::getAsBoolean);
    }

    // ------------------------------------------------------------------ the runner

    @Test
    void aStepThatThrowsIsFailedAndTheNextStepStillRuns() {
        first.throwing = true;
        StepRunner runner = new StepRunner(List.of(first, second), book, Duration.ofMinutes(5), () -> {});
        runner.pass(plan(1));
        assertEquals("failed", book.get("first").orElseThrow().state());
        assertTrue(book.get("first")
                .orElseThrow()
                .detail()
                .contains("the step failed unexpectedly: java.lang.IllegalStateException: a bug"));
        assertEquals(1, second.runs.get(), "the next step ran");
        assertEquals("unchanged", book.get("second").orElseThrow().state());
    }

    @Test
    void aNewPlanIsDueAtOnceTheSameOneOnlyAtTheResyncAndSoonerAfterAFailure() {
        Duration resync = Duration.ofMinutes(5);
        StepRunner runner = new StepRunner(List.of(first), book, resync, () -> {});
        assertTrue(runner.due(Instant.now()).isEmpty(), "no plan, no pass");
        runner.offer(plan(1));
        assertEquals(Optional.of(plan(1)), runner.due(Instant.now()), "a new plan at once");
        runner.pass(plan(1));
        Instant after = Instant.now();
        runner.offer(plan(1));
        assertTrue(runner.due(after.plusSeconds(60)).isEmpty(), "the same plan again is not due before the resync");
        assertEquals(Optional.of(plan(1)), runner.due(after.plus(resync).plusSeconds(1)), "at the resync it is");
        runner.offer(plan(2));
        assertEquals(Optional.of(plan(2)), runner.due(after), "another revision at once");
        runner.pass(plan(2));

        first.kind = Outcome.Kind.FAILED;
        runner.pass(plan(2));
        Instant failed = Instant.now();
        assertTrue(runner.due(failed.plusSeconds(4)).isEmpty());
        assertEquals(Optional.of(plan(2)), runner.due(failed.plusSeconds(6)), "a failed pass again in 5 s");
    }

    @Test
    void aPassWithAWaitingStepIsFollowedSoonAndAtOnceWhenTheJobsChange() {
        StepRunner runner = new StepRunner(List.of(first), book, Duration.ofMinutes(5), () -> {});
        runner.offer(plan(1));
        runner.pass(plan(1));
        runner.jobsChanged();
        assertTrue(runner.due(Instant.now()).isEmpty(), "no step waits: a change of the jobs is no reason for a pass");

        first.waits = List.of("unmounting /shared waits for job 7 running here to end");
        runner.pass(plan(1));
        Instant waited = Instant.now();
        assertTrue(runner.due(waited.plusSeconds(4)).isEmpty());
        assertEquals(
                Optional.of(plan(1)),
                runner.due(waited.plusSeconds(6)),
                "a waiting pass again in 5 s, not at the resync");
        runner.jobsChanged();
        assertEquals(Optional.of(plan(1)), runner.due(waited), "the jobs changed while a step waits: a pass at once");
        runner.pass(plan(1));
        runner.pass(plan(1));
        assertTrue(
                runner.due(Instant.now().plusSeconds(6)).isEmpty(),
                "waiting longer, the retry doubles as after failures");

        first.waits = List.of();
        runner.pass(plan(1));
        assertTrue(runner.due(Instant.now().plusSeconds(60)).isEmpty(), "nothing waits: the resync again");
    }

    @Test
    void theRunnerAppliesAnOfferedPlanOnItsOwnThreadAndTellsThePoster() throws Exception {
        AtomicInteger told = new AtomicInteger();
        StepRunner runner = new StepRunner(List.of(first, second), book, Duration.ofMinutes(5), told::incrementAndGet);
        runner.start();
        stops.add(runner::stop);
        runner.offer(plan(1));
        await("the pass", () -> told.get() == 1);
        assertEquals(1, first.runs.get());
        assertEquals(Optional.of(plan(1)), runner.applied());
        runner.offer(plan(1));
        Thread.sleep(200); // a fixed wait: what is checked is that nothing happens in it
        assertEquals(1, first.runs.get(), "the same plan is not applied again before the resync");
        runner.offer(plan(2));
        await("the second plan's pass", () -> told.get() == 2);
    }

    @Test
    void aLeaderEligibleMachineFollowsItsOwnAgentWhileItLeadsElseTheElectionsRecordButNeverItsOwnStaleOne() {
        var other = Optional.of(new io.slurmlet.agent.store.EtcdElection.Record("head2", "https://10.0.0.2:7818"));
        assertEquals(
                List.of(java.net.URI.create("https://127.0.0.1:7818")),
                Joining.leaderEligibleBases(true, 7818, electedOther(other, "head1")));
        assertEquals(
                List.of(java.net.URI.create("https://10.0.0.2:7818")),
                Joining.leaderEligibleBases(false, 0, electedOther(other, "head1")),
                "a standby follows the leader its election names");
        assertEquals(
                List.of(java.net.URI.create("https://10.0.0.2:7818")),
                Joining.leaderEligibleBases(true, 0, electedOther(other, "head1")),
                "its own channel not open yet");
        assertEquals(
                List.of(),
                Joining.leaderEligibleBases(
                        false,
                        0,
                        electedOther(
                                Optional.of(new io.slurmlet.agent.store.EtcdElection.Record(
                                        "head1", "https://10.0.0.1:7818")),
                                "head1")),
                "its own record, read again after it lost the lead, until the lease lapses");
        assertEquals(
                List.of(),
                Joining.leaderEligibleBases(
                        false,
                        0,
                        electedOther(
                                Optional.of(
                                        new io.slurmlet.agent.store.EtcdElection.Record("head2", "https://10.0.0.2:0")),
                                "head1")),
                "a record with no port");
        assertEquals(
                List.of(),
                Joining.leaderEligibleBases(false, 0, electedOther(Optional.empty(), "head1")),
                "no leader yet");
    }

    /** What the leader role's {@code LeaderFinder} answers from the election's record {@code seen}. */
    static Optional<java.net.URI> electedOther(
            Optional<io.slurmlet.agent.store.EtcdElection.Record> seen, String self) {
        return io.slurmlet.agent.store.EtcdElection.other(seen, self).map(r -> java.net.URI.create(r.agents()));
    }

    @Test
    void backoffDoublesUpToTheResync() {
        Duration resync = Duration.ofSeconds(60);
        assertEquals(resync, StepRunner.nextPassIn(0, resync));
        assertEquals(Duration.ofSeconds(5), StepRunner.nextPassIn(1, resync));
        assertEquals(Duration.ofSeconds(10), StepRunner.nextPassIn(2, resync));
        assertEquals(Duration.ofSeconds(40), StepRunner.nextPassIn(4, resync));
        assertEquals(resync, StepRunner.nextPassIn(5, resync));
        assertEquals(resync, StepRunner.nextPassIn(50, resync));
    }

    // ------------------------------------------------------------------ the poller, the runner and the poster together

    /** The node role on fakes, as NodeAgent wires it. */
    final class Role {
        final FakeLeader leader = new FakeLeader();
        final AtomicInteger connects = new AtomicInteger();
        final AtomicInteger forgotten = new AtomicInteger();
        final AtomicInteger looks = new AtomicInteger();
        final AtomicInteger refusedConnects;
        final StepRunner runner;
        final StatusPoster poster;
        final PlanPoller poller;

        Role(Path stateDir) throws IOException {
            this(stateDir, 0);
        }

        /** @param unreachable how many times the leader cannot be reached before it answers */
        Role(Path stateDir, int unreachable) throws IOException {
            this(stateDir, unreachable, 0);
        }

        /** @param factsDown how many reports of facts fail (the link is from disk, the leader is down) before one is taken */
        Role(Path stateDir, int unreachable, int factsDown) throws IOException {
            this(stateDir, unreachable, factsDown, java.util.concurrent.ThreadLocalRandom.current());
        }

        /** @param random where the poller draws its moments of calling a leader that is away */
        Role(Path stateDir, int unreachable, int factsDown, java.util.random.RandomGenerator random)
                throws IOException {
            leader.factsDownFor.set(factsDown);
            refusedConnects = new AtomicInteger(unreachable);
            NodeState state = NodeState.open(stateDir);
            PlanPoller[] self = new PlanPoller[1];
            StatusPoster[] post = new StatusPoster[1];
            runner = new StepRunner(List.of(first, second), book, Duration.ofMinutes(5), () -> post[0].changed());
            poster = new StatusPoster(
                    () -> self[0].link(),
                    () -> runner.applied().map(p -> new NodeReport("n1", p.revision(), book.all(), List.of())),
                    Duration.ofMillis(50),
                    new LeaderClock(java.time.Clock.systemUTC()));
            post[0] = poster;
            PlanPoller.Connector connector = new PlanPoller.Connector() {
                @Override
                public Leader connect() throws IOException {
                    if (refusedConnects.getAndDecrement() > 0) {
                        throw new IOException("connection refused");
                    }
                    connects.incrementAndGet();
                    return leader;
                }

                @Override
                public void forget() {
                    forgotten.incrementAndGet();
                }
            };
            PlanPoller.NodeStatesWatch none = new PlanPoller.NodeStatesWatch() {
                @Override
                public boolean watching(PublishedPlan plan) {
                    return false;
                }

                @Override
                public boolean look(PublishedPlan plan) {
                    looks.incrementAndGet();
                    return true;
                }
            };
            FactsStep facts = new FactsStep(node -> new FactsCollector.Collected(onTheMachine, List.of()), "n1");
            poller = PlanPoller.builder()
                    .connector(connector)
                    .state(state)
                    .facts(facts)
                    .book(book)
                    .runner(runner)
                    .poster(poster)
                    .watch(none)
                    .pollWait(Duration.ofSeconds(30))
                    .firstBackoff(Duration.ofMillis(20))
                    .random(random)
                    .build();
            self[0] = poller;
            runner.start();
            poster.start();
            Thread t = new Thread(poller::run, "test-poller");
            t.setDaemon(true);
            t.start();
            threads.add(t);
            stops.add(poller::stop);
            stops.add(runner::stop);
            stops.add(poster::stop);
        }
    }

    /** Draws the latest moment each time: a wait as long as the rule allows. */
    static final java.util.random.RandomGenerator LATEST = new java.util.random.RandomGenerator() {
        @Override
        public long nextLong() {
            return Long.MAX_VALUE;
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    };

    @Test
    void theLeadersReconnectionWindowIsKeptOnDiskAndSpreadsTheCallsOfAnAgentStartedWhileTheLeaderIsAway(
            @TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        role.leader.window = Duration.ofSeconds(50);
        await("the window kept", () -> {
            try {
                return NodeState.open(dir).reconnectWindow().equals(Duration.ofSeconds(50));
            } catch (IOException e) {
                return false;
            }
        });
        int polls = role.leader.pollCalls.get();
        await("polls go on", () -> role.leader.pollCalls.get() >= polls + 3);
        assertEquals(Duration.ofSeconds(50), NodeState.open(dir).reconnectWindow());
        stops.forEach(Runnable::run);
        stops.clear();

        // The agent starts again with the leader away (a whole site powered on at once): its first call goes at once,
        // the next at a moment of the leader's last window (here its end, 50 s), not after the 20 ms backoff.
        Role again = new Role(dir, 1000, 0, LATEST);
        await("the first call", () -> again.refusedConnects.get() < 1000);
        Thread.sleep(1000); // a fixed wait: the second is the window under test, and no call may come in it
        assertEquals(999, again.refusedConnects.get(), "one call in the first second: the next waits for the window");

        // Without a window kept (a machine that never heard one), the calls come at the backoff.
        Path fresh = dir.resolve("fresh");
        java.nio.file.Files.createDirectories(fresh);
        Role none = new Role(fresh, 1000, 0, LATEST);
        await("calls at the backoff", () -> none.refusedConnects.get() < 995);
    }

    @Test
    void aPlanFromTheLeaderIsAppliedAndItsStatusPostedWithTheFactsFirst(@TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        await("facts", () -> role.leader.facts.size() == 1);
        role.leader.polls.add(plan(3));
        await("a status for plan 3", () -> role.leader.statuses.stream().anyMatch(r -> r.planRevision() == 3));
        NodeReport report = role.leader.statuses.get(role.leader.statuses.size() - 1);
        assertEquals(
                List.of("facts", "first", "second"),
                report.steps().stream().map(s -> s.step()).toList());
        assertEquals(1, role.leader.facts.size(), "unchanged facts are not reported again");
    }

    @Test
    void aPlanMadeFromOtherFactsGetsTheMachinesFactsAgainAndOneMadeFromTheseDoesNot(@TempDir Path dir)
            throws Exception {
        Role role = new Role(dir);
        await("facts", () -> role.leader.facts.size() == 1);
        role.leader.polls.add(new PublishedPlan(2, plan(2).plan().madeFrom(FACTS)));
        await(
                "plan 2 taken",
                () -> role.runner.applied().map(PublishedPlan::revision).equals(Optional.of(2L)));
        NodeFacts older = TestFacts.fourCoresTwoThreads("n1")
                .address("10.0.0.1")
                .memoryMiB(16_000)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
        role.leader.polls.add(new PublishedPlan(3, plan(3).plan().madeFrom(older)));
        await("the facts reported again", () -> role.leader.facts.size() == 2);
        assertEquals(List.of(FACTS, FACTS), role.leader.facts);
        int polls = role.leader.pollCalls.get();
        await("polls go on", () -> role.leader.pollCalls.get() >= polls + 3);
        assertEquals(2, role.leader.facts.size(), "once: the leader took them");
    }

    @Test
    void aLongPassStopsNeitherThePollNorTheStatusOfWhatWasDone(@TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        role.leader.polls.add(plan(1));
        await("the first pass's status", () -> role.leader.statuses.size() >= 1);
        second.hold = new CountDownLatch(1); // a 15-minute apt-get install
        role.leader.polls.add(plan(2));
        await("the second pass holds", () -> second.runs.get() == 2);
        int polls = role.leader.pollCalls.get();
        await("polls go on during the pass", () -> role.leader.pollCalls.get() >= polls + 3);
        role.leader.polls.add(plan(3));
        await("plan 3 taken while the pass holds", () -> role.runner.plan().equals(Optional.of(plan(3))));
        second.hold.countDown();
        await("plan 3 applied after it", () -> role.runner.applied().equals(Optional.of(plan(3))));
        await("and posted", () -> role.leader.statuses.stream().anyMatch(r -> r.planRevision() == 3));
    }

    @Test
    void a401ForgetsTheCredentialAndJoinsAgainThenReportsTheFactsAgain(@TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        await("joined", () -> role.connects.get() == 1 && role.leader.facts.size() == 1);
        role.leader.polls.add(new LeaderLink.Refused(401, "the leader does not know this credential"));
        await("joined again", () -> role.connects.get() == 2);
        assertEquals(1, role.forgotten.get(), "the credential was forgotten");
        await("the facts reported again", () -> role.leader.facts.size() == 2);
    }

    @Test
    void aLeaderThatComesBackGetsTheStatusAtOnce(@TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        role.leader.polls.add(plan(1));
        await("a status", () -> role.leader.statuses.size() == 1);
        role.leader.polls.add(new IOException("connection refused"));
        await("the poll failed and was tried again", () -> role.leader.pollCalls.get() >= 3);
        await("the status again, without a new pass", () -> role.leader.statuses.size() == 2);
        assertEquals(1, first.runs.get(), "no pass was needed for it");
    }

    @Test
    void beforeTheLeaderFirstAnswersThePlanOnDiskIsNotApplied(@TempDir Path dir) throws Exception {
        NodeState.open(dir).savePlan(plan(7));
        Role role = new Role(dir, 2);
        await("two refused connects", () -> role.refusedConnects.get() <= 0);
        assertEquals(0, first.runs.get(), "nothing applied while the leader cannot be reached");
        // applied() is set once the whole pass is done, after the step ran: wait for that, not the run.
        await(
                "the plan on disk, once the leader answered",
                () -> role.runner.applied().equals(Optional.of(plan(7))));
        assertEquals(1, first.runs.get());
        assertFalse(role.leader.facts.isEmpty(), "after the facts reached the leader");
    }

    @Test
    void aJoinedMachineWhoseLeaderIsDownAtItsStartAppliesNoPlanUntilTheLeaderTakesItsFacts(@TempDir Path dir)
            throws Exception {
        NodeState.open(dir).savePlan(plan(7));
        // The credential is on disk, so the link needs no leader: the facts' report is the first call that does.
        Role role = new Role(dir, 0, 1000);
        await("three reports refused", () -> role.leader.factsDownFor.get() <= 997);
        assertEquals(0, first.runs.get(), "nothing applied while the leader is down");
        assertTrue(role.leader.statuses.isEmpty());
        role.leader.factsDownFor.set(0);
        await(
                "the plan on disk, once the leader took the facts",
                () -> role.runner.applied().equals(Optional.of(plan(7))));
        assertEquals(1, role.leader.facts.size());
    }

    /**
     * Facts the leader refuses with a Retry-After (they changed more often than it takes) are
     * reported again once that wait is over, not at the backoff (20 ms here, doubling): the machine
     * makes one call in the wait, and what it reports then is its facts as they are then. Once
     * taken they are held: not reported again. On the old code the report came again after 20 ms.
     */
    @Test
    void factsRefusedWithARetryAfterAreReportedAgainAfterItAsTheMachineHasThemThen(@TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        await("facts", () -> role.leader.facts.size() == 1);
        role.leader.factsRefusals.add(new LeaderLink.Refused(
                429, "n1's facts change more often than the leader takes them", Optional.of(Duration.ofSeconds(1))));
        onTheMachine = TestFacts.fourCoresTwoThreads("n1")
                .address("10.0.0.1")
                .memoryMiB(16_000)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
        await("the change refused", () -> role.leader.factsCalls.get() == 2);
        long refused = System.nanoTime();
        NodeFacts latest = TestFacts.fourCoresTwoThreads("n1")
                .address("10.0.0.1")
                .memoryMiB(24_000)
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
        onTheMachine = latest;
        await("the facts reported again", () -> role.leader.facts.size() == 2);
        long waited = (System.nanoTime() - refused) / 1_000_000;
        assertTrue(waited >= 900, "reported again after " + waited + " ms, before the leader's Retry-After of 1 s");
        assertEquals(3, role.leader.factsCalls.get(), "one call in the wait");
        assertEquals(List.of(FACTS, latest), role.leader.facts, "the latest facts, not those refused");
        int polls = role.leader.pollCalls.get();
        await("polls go on", () -> role.leader.pollCalls.get() >= polls + 3);
        assertEquals(2, role.leader.facts.size(), "taken, so held");
    }

    @Test
    void aPlanThatChangesNodeStatesAloneReachesSlurmAtOnceThoughAPassHolds(@TempDir Path dir) throws Exception {
        Role role = new Role(dir);
        Map<String, String> files = Map.of("/etc/slurm/slurm.conf", "ClusterName=lab\n");
        role.leader.polls.add(plan(1, files, Map.of("n2", NodeWish.PLATFORMS)));
        await(
                "plan 1 applied",
                () -> role.runner.applied().equals(Optional.of(plan(1, files, Map.of("n2", NodeWish.PLATFORMS)))));
        assertEquals(0, role.looks.get(), "the first plan goes through the pass");
        await("its status", () -> !role.leader.statuses.isEmpty());
        // A fixed wait: nothing marks the moment plan 1's statuses are all posted. Counted after it, the statuses
        // below grow only by what plan 2's look posts.
        Thread.sleep(200);
        int statuses = role.leader.statuses.size();
        second.hold = new CountDownLatch(1);
        role.leader.polls.add(plan(2, files, Map.of("n2", NodeWish.RESUME)));
        await("the lend reaches Slurm", () -> role.looks.get() == 1);
        await("while the pass for it holds", () -> second.runs.get() == 2 && second.hold.getCount() == 1);
        await("and the leader hears of it", () -> role.leader.statuses.size() > statuses);
        second.hold.countDown();
        await(
                "plan 2 applied by the pass too",
                () -> role.runner.applied().map(PublishedPlan::revision).equals(Optional.of(2L)));
        role.leader.polls.add(
                plan(3, Map.of("/etc/slurm/slurm.conf", "ClusterName=other\n"), Map.of("n2", NodeWish.PLATFORMS)));
        await(
                "plan 3 applied",
                () -> role.runner.applied().map(PublishedPlan::revision).equals(Optional.of(3L)));
        assertEquals(1, role.looks.get(), "a plan that changes files as well waits for its pass");
    }

    @Test
    void onlyNodeStatesChangeComparesEverythingButTheNodeStates() {
        PublishedPlan a = plan(1, Map.of("/f", "x"), Map.of("n2", NodeWish.RESUME));
        assertTrue(
                a.onlyNodeStatesChangeTo(plan(2, Map.of("/f", "x"), Map.of("n2", new NodeWish.Drain("slurmlet: r")))));
        assertFalse(
                a.onlyNodeStatesChangeTo(plan(2, Map.of("/f", "y"), Map.of("n2", new NodeWish.Drain("slurmlet: r")))));
        assertFalse(
                a.onlyNodeStatesChangeTo(plan(2, Map.of("/f", "x"), Map.of("n2", NodeWish.RESUME))), "nothing changed");
    }

    @Test
    void aPassOfAnOlderPlanNeverPutsBackOlderNodeStates() {
        List<NodePlan> seen = new ArrayList<>();
        Step states = new Step() {
            @Override
            public String name() {
                return "nodestates";
            }

            @Override
            public Outcome apply(NodePlan plan) {
                seen.add(plan);
                return Outcome.unchanged(name(), "");
            }

            @Override
            public boolean newestPlanOnly() {
                return true;
            }
        };
        StepRunner runner = new StepRunner(List.of(first, states), book, Duration.ofMinutes(5), () -> {});
        Map<String, String> files = Map.of("/etc/slurm/slurm.conf", "ClusterName=lab\n");
        PublishedPlan drained = plan(1, files, Map.of("n2", NodeWish.PLATFORMS));
        PublishedPlan lent = plan(2, files, Map.of("n2", NodeWish.RESUME));
        runner.offer(drained);
        runner.offer(lent); // the poller resumed n2 while the pass of plan 1 ran its first steps
        runner.pass(drained);
        assertEquals(List.of(lent.plan()), seen, "the node states of the newest plan, not plan 1's");
        PublishedPlan renamed =
                plan(3, Map.of("/etc/slurm/slurm.conf", "ClusterName=other\n"), Map.of("n2", NodeWish.PLATFORMS));
        runner.offer(renamed);
        runner.pass(lent);
        assertEquals(1, seen.size(), "skipped: plan 3's own pass comes next");
        assertEquals(2, first.runs.get(), "the other steps ran");
        runner.pass(renamed);
        assertEquals(renamed.plan(), seen.get(1));
    }
}
