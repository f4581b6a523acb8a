package io.slurmlet.model.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A problem as ctl prints it names the setting it refuses, whether or not its sentence does. */
class ProblemTest {

    @Test
    void aSentenceThatDoesNotNameItsKeyIsLedByTheKeyAndValue() {
        assertEquals(
                "shared.path=/data: n0 would stop exporting /shared to n1 while 1 job that may use it still runs (48 on n1)",
                new Problem(
                                "shared.path",
                                "/data",
                                "n0 would stop exporting /shared to n1 while 1 job that may use it still runs (48 on n1)")
                        .shown());
        assertEquals(
                "shared.server=: n0 would stop exporting /shared to n1",
                new Problem("shared.server", "", "n0 would stop exporting /shared to n1").shown());
        assertEquals(
                "controller=n1: moving slurmctld from n0 to n10 would lose a job",
                new Problem("controller", "n1", "moving slurmctld from n0 to n10 would lose a job").shown(),
                "n1 is not n10");
        assertEquals("controller=n1: ", new Problem("controller", "n1", null).shown());
    }

    @Test
    void oneThatNamesItsKeyOrItsValueIsShownAsItIs() {
        for (Problem p : java.util.List.of(
                new Problem(
                        "shared.path",
                        "/etc",
                        "shared.path /etc is the system's own directory: take one of its own, as /shared"),
                new Problem("accounts[1].email", "a@example.org", "[1] email a@example.org is given twice in the file"),
                new Problem(
                        "controller",
                        "n1",
                        "moving slurmctld from n0 to n1 would lose the 1 job it runs (48 of bob)"))) {
            assertEquals(p.message(), p.shown());
        }
    }
}
