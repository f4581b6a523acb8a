package io.slurmlet.agent.slurm.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The last line of defence: whatever the checks let through, no value ends, continues or adds a line. */
class ConfTextTest {

    static final List<String> HOSTILE = List.of(
            "1\nPrologSlurmctld=/tmp/evil",
            "1\r",
            "1\" AuthType=\"auth/none",
            "\"1",
            "1\\",
            "1#",
            "1\t2",
            "1\u0000",
            "1\u000b",
            "1\ud800",
            "1\u2028",
            "\u202e1",
            "");

    @Test
    void aValueThatCouldBreakItsLineIsRefusedWhereverItGoes() {
        for (String bad : HOSTILE) {
            ConfText c = new ConfText("slurm.conf", "22.05");
            String before = c.toString();
            assertThrows(IllegalArgumentException.class, () -> c.set("KillWait", bad), bad);
            assertThrows(IllegalArgumentException.class, () -> c.line("NodeName", "n1", "NodeAddr", bad), bad);
            assertThrows(IllegalArgumentException.class, () -> c.line("NodeName", bad), bad);
            assertEquals(before, c.toString(), "nothing of a refused line is written");
        }
        for (String badKey : List.of("Kill Wait", "KillWait=1\nX", "", "1Key", "Key#")) {
            assertThrows(
                    IllegalArgumentException.class, () -> new ConfText("slurm.conf", "22.05").set(badKey, "1"), badKey);
        }
        assertThrows(
                IllegalArgumentException.class, () -> new ConfText("slurm.conf", "22.05").comment("a\nNodeName=evil"));
    }

    @Test
    void aValueWithSpacesIsQuotedAndTheRestIsWrittenAsGiven() {
        String text = new ConfText("slurm.conf", "22.05")
                .set("MailProg", "/usr/bin/site mail")
                .line("NodeName", "n1", "Gres", "gpu:nvidia_h100:8", "Reason", "slurmlet: not lent")
                .set("SchedulerParameters", "bf_window=2880,bf_interval=60")
                .toString();
        assertTrue(text.endsWith("""
                MailProg="/usr/bin/site mail"
                NodeName=n1 Gres=gpu:nvidia_h100:8 Reason="slurmlet: not lent"
                SchedulerParameters=bf_window=2880,bf_interval=60
                """), text);
    }

    @Test
    void gpuDeviceFilesNeedAtLeastOne() {
        assertEquals("/dev/nvidia[0-7]", Slurm2205.deviceFiles(0, 8));
        assertThrows(IllegalArgumentException.class, () -> Slurm2205.deviceFiles(0, -5));
        assertThrows(IllegalArgumentException.class, () -> Slurm2205.deviceFiles(0, 0));
    }
}
