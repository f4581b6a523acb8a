package io.slurmlet.agent.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which release wrote slurmctld's state, and who can start from it; the numbers measured on Debian's three. */
class SavedStateTest {

    static final String WHERE = "/var/lib/slurm/slurmctld on n0";

    @Test
    void theProtocolNumbersDebiansReleasesWroteNameTheirReleases() {
        // Read from assoc_usage after a run of each (system-tests/slurm/try-version, FINDINGS.md).
        assertEquals(Optional.of("22.05"), SavedState.release(38 << 8));
        assertEquals(Optional.of("24.11"), SavedState.release(42 << 8));
        assertEquals(Optional.of("26.05"), SavedState.release(45 << 8));
        assertEquals(Optional.empty(), SavedState.release(0));
        assertEquals(Optional.empty(), SavedState.release(99 << 8));
    }

    @Test
    void debian12To13IsAJumpSlurmCannotMakeAndTheMessageSaysTheSteps() {
        String why =
                SavedState.cannotStart(SlurmVersion.of(24, 11), 9728, WHERE).orElseThrow();
        assertEquals(
                "slurmctld's saved state in /var/lib/slurm/slurmctld on n0 was written by Slurm 22.05, and the installed 24.11 "
                        + "reads only the state of 23.02 or later, so slurmctld would exit at its start: slurmlet does not start it. Upgrade "
                        + "in steps: install Slurm 23.11 on this machine, starting slurmctld once on each (it saves its state anew), then "
                        + "24.11; or "
                        + "move /var/lib/slurm/slurmctld on n0 aside to start afresh, which loses every queued and running job",
                why);
        assertTrue(SavedState.cannotStart(SlurmVersion.of(26, 5), 9728, WHERE).isPresent(), "26.05 likewise");
        assertTrue(SavedState.cannotStart(SlurmVersion.of(26, 5), 41 << 8, WHERE)
                .orElseThrow()
                .contains("reads only the state of 24.11 or later"));
    }

    @Test
    void upgradesSlurmSupportsAndNoStateAtAllStartAsTheyAre() {
        assertEquals(Optional.empty(), SavedState.cannotStart(SlurmVersion.of(24, 11), 42 << 8, WHERE), "its own");
        assertEquals(
                Optional.empty(), SavedState.cannotStart(SlurmVersion.of(24, 11), 39 << 8, WHERE), "23.02, three back");
        assertEquals(
                Optional.empty(), SavedState.cannotStart(SlurmVersion.of(26, 5), 42 << 8, WHERE), "24.11, three back");
        assertEquals(
                Optional.empty(), SavedState.cannotStart(SlurmVersion.of(22, 5), 36 << 8, WHERE), "20.11, two back");
        assertTrue(
                SavedState.cannotStart(SlurmVersion.of(22, 5), 35 << 8, WHERE).isPresent(),
                "20.02, three back before 24.11");
        assertEquals(Optional.empty(), SavedState.cannotStart(SlurmVersion.of(24, 11), 0, WHERE), "nothing saved");
        assertEquals(
                Optional.empty(),
                SavedState.cannotStart(SlurmVersion.of(30, 5), 42 << 8, WHERE),
                "a daemon unknown here");
    }

    @Test
    void aLongWayIsGivenStepByStepAndAStateNewerThanTheTableIsRefused() {
        assertEquals(
                "23.02, then 24.11",
                SavedState.gap(SlurmVersion.of(26, 5), 37 << 8).orElseThrow().step(),
                "21.08's state to 26.05: each step reads the one before's");
        assertTrue(SavedState.cannotStart(SlurmVersion.of(24, 11), 99 << 8, WHERE)
                .orElseThrow()
                .contains("was written by Slurm a release after 26.11, newer than the installed 24.11"));
    }

    @Test
    void aDowngradeIsRefusedToo() {
        assertEquals(
                Optional.of(
                        "slurmctld's saved state in /var/lib/slurm/slurmctld on n0 was written by Slurm 24.11, newer than the "
                                + "installed 22.05, which cannot read it: install 24.11 or later again"),
                SavedState.cannotStart(SlurmVersion.of(22, 5), 42 << 8, WHERE));
    }

    @Test
    void anUpgradeThatCouldNotStartIsToldBeforeItIsMade() {
        assertEquals(
                Optional.of(
                        "the package manager would upgrade slurmctld to 24.11, which reads only the state of 23.02 or later, "
                                + "and the state in /var/lib/slurm/slurmctld on n0 was written by 22.05: before that upgrade, go through Slurm 23.11 "
                                + "(install it and start slurmctld once on each), or keep slurmctld back (apt-mark hold slurmctld); slurmlet would not start "
                                + "24.11 on this state"),
                SavedState.beforeUpgradeTo(SlurmVersion.of(24, 11), 9728, WHERE));
        assertEquals(Optional.empty(), SavedState.beforeUpgradeTo(SlurmVersion.of(26, 5), 42 << 8, WHERE));
    }
}
