package io.slurmlet.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.observed.ClockSeen;
import io.slurmlet.model.observed.Observed;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusClockNotesTest {

    @Test
    void aSlurmMachineWhoseClockIsSurelyOverFiveSecondsOffIsNamedWithHowFar() {
        Map<String, Observed> seen = Map.of(
                "n1", Observed.NOTHING.withClock(new ClockSeen(42_000, 2)),
                "n2", Observed.NOTHING.withClock(new ClockSeen(-5_400, 500)), // maybe within 5 s: its trip was slow
                "n3", Observed.NOTHING.withClock(new ClockSeen(-6_000, 3)),
                "n4", Observed.NOTHING, // an agent that has not measured it
                "n9", Observed.NOTHING.withClock(new ClockSeen(60_000, 1))); // no Slurm role: not listed
        assertEquals(
                List.of(
                        "n1's clock is 42000 ms ahead of the leader's (±2 ms), as its agent measured it: munge refuses "
                                + "credentials from clocks more than its lifetime (300 s by default) apart, and Slurm's "
                                + "job times and logs disagree; sync the machines' clocks (chrony, systemd-timesyncd)",
                        "n3's clock is 6000 ms behind the leader's (±3 ms), as its agent measured it: munge refuses "
                                + "credentials from clocks more than its lifetime (300 s by default) apart, and Slurm's "
                                + "job times and logs disagree; sync the machines' clocks (chrony, systemd-timesyncd)"),
                StatusResource.clockNotes(Set.of("n4", "n3", "n2", "n1", "n0"), seen));
    }
}
