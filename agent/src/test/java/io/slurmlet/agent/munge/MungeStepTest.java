package io.slurmlet.agent.munge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MungeStepTest {

    private static final Path KEY = Path.of("/etc/munge/munge.key");
    private final MungeKey key = MungeKey.random();
    private final FakeFiles files = new FakeFiles();
    private final FakeServices services = new FakeServices();
    private final MungeStep step = new MungeStep(files, services, Path.of("/"), java.time.Clock.systemUTC());

    private NodePlan plan(Optional<MungeKey> k) {
        return NodePlan.of("n1", k.isPresent() ? Set.of(Role.COMPUTE) : Set.of())
                .withMungeKey(k);
    }

    @Test
    void firstApplyWritesTheKeyRootOnlyAndStartsMunge() {
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.Kind.CHANGED, o.kind());
        assertEquals("wrote the cluster's key to /etc/munge/munge.key; enabled munge; started munge", o.detail());
        assertEquals(List.of("write /etc/munge/munge.key r-------- munge:munge"), files.log);
        assertEquals(List.of("enable munge", "start munge"), services.log);
    }

    @Test
    void secondApplyWritesNothing() {
        step.apply(plan(Optional.of(key)));
        files.log.clear();
        services.log.clear();
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.unchanged("munge", "the key matches and munge runs"), o);
        assertTrue(files.log.isEmpty());
        assertTrue(services.log.isEmpty());
    }

    @Test
    void aNewKeyRestartsMungedWhichReadsItOnlyAtStart() {
        files.put(KEY, MungeKey.random().bytes(), "r--------", "munge", "munge");
        services.running("munge");
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals("wrote the cluster's key to /etc/munge/munge.key; restarted munge for its new key", o.detail());
        assertEquals(List.of("restart munge"), services.log);
    }

    @Test
    void aKeyWithLooseModeIsTightenedWithoutARestart() {
        files.put(KEY, key.bytes(), "rw-r--r--", "root", "root");
        services.running("munge");
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.changed("munge", "made /etc/munge/munge.key 0400 munge:munge"), o);
        assertTrue(services.log.isEmpty());
    }

    @Test
    void aMachineWithoutARoleKeepsItsMungeAsItIs() {
        files.put(KEY, new byte[64], "r--------", "munge", "munge");
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan(Optional.empty())).kind());
        assertTrue(files.log.isEmpty() && services.log.isEmpty());
    }

    @Test
    void failuresSayWhatFailedAndNeverShowTheKey() {
        files.failWrites(KEY);
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.failed("munge", "cannot write /etc/munge/munge.key: No space left on device"), o);

        FakeFiles ok = new FakeFiles();
        FakeServices broken = new FakeServices().failing("munge");
        Outcome failed =
                new MungeStep(ok, broken, Path.of("/"), java.time.Clock.systemUTC()).apply(plan(Optional.of(key)));
        assertTrue(failed.failed());
        assertEquals(
                "systemctl start munge failed (exit 1): Job for munge.service failed because the control process "
                        + "exited with error code.",
                failed.detail());
        String base64 = Base64.getEncoder().encodeToString(key.bytes());
        for (Outcome each : List.of(o, failed)) {
            assertFalse(each.toString().contains(base64.substring(0, 16)));
        }
    }

    // A rotated key: machines that hold the key before it switch at the moment the leader picked.

    private static final java.time.Instant SWITCH = java.time.Instant.parse("2026-12-07T10:00:10Z");

    /** A clock the step's sleeps move on, and what it slept. */
    private static final class Time {
        java.time.Instant now = java.time.Instant.parse("2026-12-07T10:00:01.500Z");
        final List<java.time.Duration> slept = new java.util.ArrayList<>();

        MungeStep step(FakeFiles files, FakeServices services, List<String> events) {
            java.time.Clock clock = new java.time.Clock() {
                public java.time.ZoneId getZone() {
                    return java.time.ZoneOffset.UTC;
                }

                public java.time.Clock withZone(java.time.ZoneId zone) {
                    return this;
                }

                public java.time.Instant instant() {
                    return now;
                }
            };
            return new MungeStep(files, services, Path.of("/"), clock, d -> {
                slept.add(d);
                events.add("slept until " + now.plus(d));
                now = now.plus(d);
            });
        }
    }

    @Test
    void aRotatedKeyIsWrittenAndMungedRestartedAtTheAgreedMomentNotBefore() {
        files.put(KEY, key.bytes(), "r--------", "munge", "munge");
        services.running("munge");
        Time time = new Time();
        List<String> events = new java.util.ArrayList<>();
        MungeStep step = time.step(files, services, events);
        MungeKey next = MungeKey.random().rotated(1, Optional.of(SWITCH));

        Outcome o = step.apply(plan(Optional.of(next)));

        assertEquals(
                Outcome.changed(
                        "munge",
                        "wrote the cluster's key to /etc/munge/munge.key at 2026-12-07T10:00:10Z, when every "
                                + "machine switched; restarted munge for its new key"),
                o);
        assertEquals(List.of("slept until 2026-12-07T10:00:10Z"), events, "nothing is written before the moment");
        assertEquals(List.of(java.time.Duration.ofMillis(8500)), time.slept);
        assertTrue(next.sameKey(files.stat(KEY).orElseThrow().content()));
        assertEquals(List.of("restart munge"), services.log);
        assertEquals(Long.valueOf(1), step.seen().orElseThrow().rotation(), "the report says which rotation it holds");

        files.log.clear();
        services.log.clear();
        assertEquals(Outcome.unchanged("munge", "the key matches and munge runs"), step.apply(plan(Optional.of(next))));
        assertTrue(
                files.log.isEmpty() && services.log.isEmpty() && time.slept.size() == 1,
                "a second apply waits for nothing");
    }

    @Test
    void aMachineThatMissedTheMomentSwitchesAtOnce() {
        files.put(KEY, key.bytes(), "r--------", "munge", "munge");
        services.running("munge");
        Time time = new Time();
        time.now = SWITCH.plusSeconds(3600); // down during the rotation, back an hour later
        MungeStep step = time.step(files, services, new java.util.ArrayList<>());
        Outcome o = step.apply(plan(Optional.of(MungeKey.random().rotated(1, Optional.of(SWITCH)))));
        assertEquals("wrote the cluster's key to /etc/munge/munge.key; restarted munge for its new key", o.detail());
        assertTrue(time.slept.isEmpty());
    }

    @Test
    void aMachineWithNoKeyYetTakesARotatedKeyAtOnce() {
        Time time = new Time();
        MungeStep step = time.step(files, services, new java.util.ArrayList<>());
        Outcome o = step.apply(plan(Optional.of(MungeKey.random().rotated(2, Optional.of(SWITCH)))));
        assertEquals("wrote the cluster's key to /etc/munge/munge.key; enabled munge; started munge", o.detail());
        assertTrue(time.slept.isEmpty(), "nothing to switch from: no reason to wait");
    }

    @Test
    void aMomentFurtherThanTheLongestWaitIsHeldForALaterPass() {
        files.put(KEY, key.bytes(), "r--------", "munge", "munge");
        services.running("munge");
        Time time = new Time();
        MungeStep step = time.step(files, services, new java.util.ArrayList<>());
        Outcome o = step.apply(plan(Optional.of(
                MungeKey.random().rotated(1, Optional.of(time.now.plus(java.time.Duration.ofMinutes(5)))))));
        assertEquals(Outcome.Kind.UNCHANGED, o.kind(), o::toString);
        assertEquals(
                List.of(
                        "the cluster's new munge key is written at 2026-12-07T10:05:01.500Z, when every machine switches (in 300 s)"),
                step.waiting());
        assertTrue(files.log.isEmpty() && services.log.isEmpty() && time.slept.isEmpty());
    }

    @Test
    void thePreviewSaysWhenTheKeyIsWritten() {
        var wanted = new MungeDiff.Wanted(true, Optional.of(MungeKey.random().rotated(1, Optional.of(SWITCH))));
        var seen = new io.slurmlet.model.observed.MungeSeen(true, false, true, true, true);
        assertEquals(
                List.of(
                        "write the cluster's key to /etc/munge/munge.key at 2026-12-07T10:00:10Z, when every machine switches",
                        "restart munged for its new key"),
                MungeDiff.diff(wanted, seen).will());
        assertEquals(
                List.of("write the cluster's key to /etc/munge/munge.key", "restart munged for its new key"),
                MungeDiff.diff(wanted, seen, SWITCH).will(),
                "at the moment itself: now");
    }

    /** One desired for the step and the preview; only the machine's diff asks for the key, which a preview's plans never hold. */
    @Test
    void aPlanWithARoleButNoKeyLeavesMungeOnTheMachineAndThePreviewShowsTheKeyWritten() {
        NodePlan noKey = NodePlan.of("n1", Set.of(Role.COMPUTE));
        assertEquals(MungeDiff.desired(noKey), step.desired(noKey));
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(noKey).kind());
        assertTrue(files.log.isEmpty() && services.log.isEmpty());
        assertEquals(
                List.of("write the cluster's key to /etc/munge/munge.key", "enable munge", "start munged"),
                MungeDiff.diff(
                                MungeDiff.desired(noKey),
                                new io.slurmlet.model.observed.MungeSeen(false, false, false, false, false))
                        .will());
    }
}
