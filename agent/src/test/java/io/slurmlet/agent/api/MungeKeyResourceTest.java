package io.slurmlet.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.observed.MungeSeen;
import io.slurmlet.model.plan.MungeKey;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the rotation's answer says of each machine, and which agents are too old to be rotated. */
class MungeKeyResourceTest {

    private static final MungeKey ROTATED =
            MungeKey.random().rotated(2, Optional.of(Instant.parse("2026-12-07T10:00:10Z")));

    @Test
    void anAgentOlderThanRotationsIsNamedAndOneThatSaysItsRotationIsNot() {
        Map<String, MungeSeen> seen = Map.of(
                "n1", new MungeSeen(true, true, true, true, true), // an older agent: no rotation said
                "n2", new MungeSeen(true, true, true, true, true, 0L),
                "n3", new MungeSeen(true, false, true, true, true)); // not matching: says nothing either way
        assertEquals(List.of("n1"), MungeKeyResource.olderAgents(List.of("n3", "n2", "n1", "n4"), seen));
    }

    @Test
    void eachMachineIsSaidInWords() {
        assertEquals(
                new MungeKeyResource.Machine("n1", true, "holds rotation 2's key", MungeKeyResource.CLOCK_UNKNOWN),
                MungeKeyResource.machine("n1", ROTATED, new MungeSeen(true, true, true, true, true, 2L), null, true));
        assertEquals(
                new MungeKeyResource.Machine(
                        "n1",
                        false,
                        "still holds rotation 1's key (due at 2026-12-07T10:00:10Z)",
                        MungeKeyResource.CLOCK_UNKNOWN),
                MungeKeyResource.machine("n1", ROTATED, new MungeSeen(true, true, true, true, true, 1L), null, true));
        assertEquals(
                new MungeKeyResource.Machine(
                        "n1", false, "its plan does not carry the new key yet", MungeKeyResource.CLOCK_UNKNOWN),
                MungeKeyResource.machine("n1", ROTATED, new MungeSeen(true, true, true, true, true, 1L), null, false));
        assertEquals(
                new MungeKeyResource.Machine(
                        "n1", false, "has not reported what its munge step saw", MungeKeyResource.CLOCK_UNKNOWN),
                MungeKeyResource.machine("n1", ROTATED, null, null, true));
        assertEquals(
                new MungeKeyResource.Machine(
                        "n1", true, "holds the cluster's first key", MungeKeyResource.CLOCK_UNKNOWN),
                MungeKeyResource.machine(
                        "n1", MungeKey.random(), new MungeSeen(true, true, true, true, true, 0L), null, true));
    }

    @Test
    void aMachinesClockIsSaidAsItsAgentMeasuredIt() {
        assertEquals(
                new MungeKeyResource.Machine(
                        "n1", true, "holds rotation 2's key", "1200 ms behind the leader's (±3 ms)"),
                MungeKeyResource.machine(
                        "n1",
                        ROTATED,
                        new MungeSeen(true, true, true, true, true, 2L),
                        new io.slurmlet.model.observed.ClockSeen(-1_200, 3),
                        true));
    }
}
