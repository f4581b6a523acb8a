package io.slurmlet.agent.leader.lending;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.leader.lending.Lending.Decision;
import io.slurmlet.agent.leader.lending.Lending.Hook;
import io.slurmlet.agent.leader.lending.Lending.HookResult;
import io.slurmlet.agent.leader.lending.Lending.Inputs;
import io.slurmlet.model.api.SlurmNodeState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The lending rules, one case each of what users will try. */
class LendingTest {

    static final Instant T0 = Instant.parse("2026-11-30T04:00:00Z");
    static final Duration BUSY = Duration.ofSeconds(15);
    static final SlurmNodeState IDLE = new SlurmNodeState("n1", "IDLE", "", List.of());
    static final SlurmNodeState DRAINED =
            new SlurmNodeState("n1", "IDLE+DRAIN", "slurmlet: reclaiming for the platform", List.of());
    static final SlurmNodeState DRAINING =
            new SlurmNodeState("n1", "MIXED+DRAIN", "slurmlet: reclaiming for the platform", List.of("1234 of alice"));

    static Inputs in(boolean wished, SlurmNodeState slurm, boolean hooks) {
        return new Inputs(wished, true, Optional.ofNullable(slurm), hooks, hooks, BUSY);
    }

    static LendingRecord platform() {
        return LendingRecord.platform("n1", T0.toString());
    }

    @Test
    void withoutHooksALendIsLentAtOnceAndAnUnlendIsThePlatformsOnceNoJobIsLeft() {
        Decision lend = Lending.decide(platform(), in(true, IDLE, false), T0);
        assertEquals(Phase.LENT, lend.record().phase());
        assertEquals(Hook.NONE, lend.hook());
        assertEquals(
                List.of("platform→lending", "lending→lent"),
                lend.record().transitions().stream()
                        .map(t -> t.from() + "→" + t.to())
                        .toList());

        Decision unlend = Lending.decide(lend.record(), in(false, DRAINING, false), T0.plusSeconds(1));
        assertEquals(Phase.RECLAIMING, unlend.record().phase());
        assertEquals("job 1234 of alice still running", unlend.record().waitingFor());
        Decision stillRunning = Lending.decide(unlend.record(), in(false, DRAINING, false), T0.plusSeconds(2));
        assertEquals(Phase.RECLAIMING, stillRunning.record().phase(), "a running job is never cut short");
        Decision done = Lending.decide(stillRunning.record(), in(false, DRAINED, false), T0.plusSeconds(3));
        assertEquals(Phase.PLATFORM, done.record().phase());
    }

    /**
     * Lent, given back before the drain hook ran (a new leader, found on the local cluster), and lent
     * again before the release: the platform never said it had freed the node, so its drain hook runs
     * before Slurm may run jobs there. One that had been lent goes straight back to lent.
     */
    @Test
    void aNodeGivenBackBeforeItsDrainHookRanAndLentAgainRunsTheDrainHookFirst() {
        Inputs unready = new Inputs(
                true, true, Optional.of(IDLE), true, true, BUSY, false, List.of(), Optional.of("a new leader looks"));
        Decision lending = Lending.decide(platform(), unready, T0);
        assertEquals(Phase.LENDING, lending.record().phase());
        assertEquals(Hook.NONE, lending.hook());
        Decision unlent = Lending.decide(lending.record(), in(false, IDLE, true), T0.plusSeconds(1));
        assertEquals(Phase.PLATFORM, unlent.record().phase(), "the platform was never asked");
        Decision lentAgain = Lending.decide(unlent.record(), in(true, IDLE, true), T0.plusSeconds(2));
        assertEquals(Phase.LENDING, lentAgain.record().phase());
        assertEquals(Hook.DRAIN, lentAgain.hook());
        // The same with the drain hook started before the unlend: reclaimed, and lent again before the release ran.
        unlent = Lending.decide(
                lentAgain.record().hookStarted("drain", T0.plusSeconds(2).toString()),
                in(false, IDLE, true),
                T0.plusSeconds(3));
        assertEquals(Phase.RECLAIMING, unlent.record().phase());
        Decision again = Lending.decide(unlent.record().hookEnded(), in(true, IDLE, true), T0.plusSeconds(4));
        assertEquals(
                Phase.LENDING,
                again.record().phase(),
                again.record().transitions().toString());
        assertEquals(Hook.DRAIN, again.hook(), "the drain hook runs before Slurm runs a job there");
        assertEquals(
                "lent again before the platform had freed it",
                again.record()
                        .transitions()
                        .get(again.record().transitions().size() - 1)
                        .why());

        Decision lent = Lending.decide(platform(), in(true, IDLE, false), T0);
        Decision back = Lending.decide(lent.record(), in(false, DRAINING, false), T0.plusSeconds(1));
        Decision relent = Lending.decide(back.record(), in(true, DRAINING, false), T0.plusSeconds(2));
        assertEquals(Phase.LENT, relent.record().phase(), "lent before: lent again, no hook");
        assertEquals(Hook.NONE, relent.hook());
    }

    @Test
    void aLendWaitsForTheMachinesSharedStorageBeforeThePlatformIsAskedAndSlurmRunsJobsThere() {
        Inputs unready = new Inputs(
                true,
                true,
                Optional.of(IDLE),
                true,
                true,
                BUSY,
                false,
                List.of(),
                Optional.of("its agent has not mounted n0:/shared at /shared yet: Slurm runs no job there before"));
        Decision d = Lending.decide(platform(), unready, T0);
        assertEquals(Phase.LENDING, d.record().phase());
        assertEquals(Hook.NONE, d.hook(), "the drain hook waits too");
        assertEquals(
                "its agent has not mounted n0:/shared at /shared yet: Slurm runs no job there before",
                d.record().waitingFor());
        Decision mounted = Lending.decide(d.record(), in(true, IDLE, false), T0.plusSeconds(3));
        assertEquals(Phase.LENT, mounted.record().phase());
    }

    @Test
    void aDrainHookThatSaysBusyIsAskedAgainLaterAndThenLends() {
        Decision d = Lending.decide(platform(), in(true, IDLE, true), T0);
        assertEquals(Phase.LENDING, d.record().phase());
        assertEquals(Hook.DRAIN, d.hook());
        LendingRecord r = d.record();
        for (int i = 0; i < 3; i++) {
            r = Lending.afterHook(r, Hook.DRAIN, new HookResult(75, "3 pods left", ""), BUSY, T0.plusSeconds(i * 20L));
            assertEquals(Phase.LENDING, r.phase());
            assertTrue(
                    r.waitingFor().startsWith("the platform is still busy on it (drain hook exit 75)"), r.waitingFor());
            assertEquals(
                    Hook.NONE,
                    Lending.decide(r, in(true, IDLE, true), T0.plusSeconds(i * 20L + 5))
                            .hook(),
                    "not before the retry time");
            assertEquals(
                    Hook.DRAIN,
                    Lending.decide(r, in(true, IDLE, true), T0.plusSeconds(i * 20L + 15))
                            .hook());
        }
        assertEquals("", r.lastError(), "busy is not an error");
        r = Lending.afterHook(r, Hook.DRAIN, new HookResult(0, "free", ""), BUSY, T0.plusSeconds(70));
        assertEquals(Phase.LENT, r.phase());
    }

    @Test
    void aFailingOrHangingHookIsReportedAndRetriedWithBackoff() {
        LendingRecord r = Lending.decide(platform(), in(true, IDLE, true), T0).record();
        r = Lending.afterHook(r, Hook.DRAIN, new HookResult(3, "error: platform API unreachable", ""), BUSY, T0);
        assertEquals("the drain hook exited with status 3: error: platform API unreachable", r.lastError());
        assertEquals(T0.plusSeconds(5).toString(), r.nextTry());
        r = Lending.afterHook(
                r,
                Hook.DRAIN,
                new HookResult(-1, "", "ran past its deadline of 10m and was killed"),
                BUSY,
                T0.plusSeconds(5));
        assertEquals("the drain hook ran past its deadline of 10m and was killed", r.lastError());
        assertEquals(T0.plusSeconds(15).toString(), r.nextTry(), "the wait doubles");
        assertEquals(Duration.ofMinutes(5), Lending.backoff(30), "and stops growing at five minutes");
    }

    @Test
    void theLastWishWinsBothWays() {
        // The drain hook started (the leader notes it before it runs it), and the node was unlent meanwhile.
        LendingRecord lending =
                Lending.decide(platform(), in(true, IDLE, true), T0).record().hookStarted("drain", T0.toString());
        Decision abandoned = Lending.decide(lending, in(false, DRAINED, true), T0.plusSeconds(1));
        assertEquals(Phase.RECLAIMING, abandoned.record().phase());
        assertEquals(Hook.RELEASE, abandoned.hook(), "the platform gets back what it began to give");
        LendingRecord busy = Lending.afterHook(
                Lending.decide(platform(), in(true, IDLE, true), T0).record(),
                Hook.DRAIN,
                new HookResult(75, "3 pods left", ""),
                BUSY,
                T0);
        assertEquals(
                Hook.RELEASE,
                Lending.decide(busy, in(false, DRAINED, true), T0.plusSeconds(1))
                        .hook(),
                "a platform that said busy may have moved some of its work: it is told to take the node back");

        // Unlent before the drain hook ran (a lend and an unlend a moment apart, or a new leader's look first): the
        // platform
        // was never asked, so it is not told to take back what it never gave (on the local cluster's failover test:
        // release
        // hooks with no drain before them).
        Decision never = Lending.decide(
                Lending.decide(platform(), in(true, IDLE, true), T0).record(),
                in(false, DRAINED, true),
                T0.plusSeconds(1));
        assertEquals(Phase.PLATFORM, never.record().phase());
        assertEquals(Hook.NONE, never.hook());
        assertEquals(
                "unlent before the platform's drain hook ran: nothing to give back",
                never.record()
                        .transitions()
                        .get(never.record().transitions().size() - 1)
                        .why());

        LendingRecord lent =
                Lending.decide(platform(), in(true, IDLE, false), T0).record();
        LendingRecord reclaiming =
                Lending.decide(lent, in(false, DRAINING, false), T0).record();
        Decision again = Lending.decide(reclaiming, in(true, DRAINING, false), T0.plusSeconds(1));
        assertEquals(Phase.LENT, again.record().phase(), "lent again while its job still runs: it stays Slurm's");
    }

    @Test
    void aNodeAnAdminDrainedStaysDrainedAndSaysWhy() {
        SlurmNodeState admin = new SlurmNodeState("n1", "IDLE+DRAIN", "bad dimm", List.of());
        Decision d = Lending.decide(platform(), in(true, admin, false), T0);
        assertEquals(Phase.LENT, d.record().phase());
        assertEquals(
                "drained in Slurm by someone else (\"bad dimm\"): slurmlet never lifts a drain it did not set",
                d.record().waitingFor());
    }

    @Test
    void withTheControllerSilentAReclaimWaitsAndSaysSo() {
        LendingRecord lent =
                Lending.decide(platform(), in(true, IDLE, false), T0).record();
        Decision d = Lending.decide(lent, in(false, null, false), T0);
        assertEquals(Phase.RECLAIMING, d.record().phase());
        assertTrue(d.record().waitingFor().startsWith("the controller has not shown this node's Slurm state yet"));
    }

    @Test
    void theReleaseHookRunsOnceItSucceeds() {
        LendingRecord lent =
                Lending.decide(platform(), in(true, IDLE, false), T0).record();
        Decision d = Lending.decide(lent, in(false, DRAINED, true), T0);
        assertEquals(Hook.RELEASE, d.hook());
        LendingRecord released = Lending.afterHook(d.record(), Hook.RELEASE, new HookResult(0, "", ""), BUSY, T0);
        assertEquals(Phase.PLATFORM, released.phase());
        assertEquals(
                Hook.NONE,
                Lending.decide(released, in(false, DRAINED, true), T0.plusSeconds(60))
                        .hook());
    }
}
