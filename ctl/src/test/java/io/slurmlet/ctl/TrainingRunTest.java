package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code ctl training-run}, the launcher's training run: the whole of 'slurm show', with no leader anywhere. */
class TrainingRunTest {

    final CtlRunner ctl = new CtlRunner();

    @Test
    void showsTheSettingsOfALeaderOfItsOwn() {
        ctl.env.put("SLURMLET_LEADER", "unix:/nonexistent/leader.sock");
        var r = ctl.runExactly("training-run");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("revision 1\nKEY "), r::toString);
        assertTrue(r.out().contains("cluster_name"), r::toString);
        assertEquals("", r.err());
    }

    @Test
    void isInNeitherTheHelpNorTheCompletion() {
        assertFalse(ctl.runExactly("--help").out().contains("training"));
        assertFalse(ctl.runExactly("completion").out().contains("training"));
    }
}
