package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.json;
import static io.slurmlet.ctl.StubLeader.ok;
import static io.slurmlet.ctl.StubLeader.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.ApiError;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ctl slurm munge-key rotate} and {@code status} against a stub leader. */
class MungeKeyCommandTest {

    static final String ROTATED = """
            {"rotation": 2, "switch_at": "2026-12-07T10:00:10Z", "requested": "2026-12-07T10:00:00Z", "by": "root over the leader's socket",
             "machines": [{"node": "n0", "holds": false, "state": "still holds rotation 1's key (due at 2026-12-07T10:00:10Z)"},
                          {"node": "n1", "holds": false, "state": "its plan does not carry the new key yet"}],
             "notes": ["rotation 2: a new munge key is stored on the leader; every machine with a Slurm role writes it and restarts munged at 2026-12-07T10:00:10Z, together (slurmctld, slurmd and jobs keep running)",
                       "watch it: ctl slurm munge-key status"]}""";

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws java.io.IOException {
        leader = new StubLeader().on("POST", "/v1/slurm/munge-key/rotate", ok(ROTATED));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void rotateSaysWhatItDidWhenMachinesSwitchAndHowToWatchIt() {
        var r = ctl.run("slurm", "munge-key", "rotate");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                rotation 2: a new munge key is stored on the leader; every machine with a Slurm role writes it and restarts munged at 2026-12-07T10:00:10Z, together (slurmctld, slurmd and jobs keep running)
                watch it: ctl slurm munge-key status

                rotation 2, asked at 2026-12-07T10:00:00Z by root over the leader's socket; machines switch at 2026-12-07T10:00:10Z
                NODE  HOLDS IT  STATE                                                       CLOCK
                n0    no        still holds rotation 1's key (due at 2026-12-07T10:00:10Z)  -
                n1    no        its plan does not carry the new key yet                     -
                0 of 2 machines hold it
                """, r.out());
        assertEquals("", r.err());
        r = ctl.run("-o", "json", "slurm", "munge-key", "rotate");
        assertEquals(ROTATED + "\n", r.out(), "-o json prints the leader's answer as it is");
    }

    @Test
    void statusShowsWhichMachinesHoldTheKey() {
        leader.on("GET", "/v1/slurm/munge-key", ok("""
                {"rotation": 2, "switch_at": "2026-12-07T10:00:10Z", "requested": "2026-12-07T10:00:00Z", "by": "root",
                 "machines": [{"node": "n0", "holds": true, "state": "holds rotation 2's key", "clock": "3 ms ahead of the leader's (±1 ms)"},
                              {"node": "n3", "holds": false, "state": "has not reported what its munge step saw"}], "notes": []}"""));
        var r = ctl.run("slurm", "munge-key", "status");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                rotation 2, asked at 2026-12-07T10:00:00Z by root; machines switch at 2026-12-07T10:00:10Z
                NODE  HOLDS IT  STATE                                     CLOCK
                n0    yes       holds rotation 2's key                    3 ms ahead of the leader's (±1 ms)
                n3    no        has not reported what its munge step saw  -
                1 of 2 machines hold it
                """, r.out());
        leader.on("GET", "/v1/slurm/munge-key", ok("{\"rotation\": 0, \"machines\": [], \"notes\": []}"));
        assertEquals(
                "the cluster's first munge key (never rotated)\nno machine has a Slurm role yet\n",
                ctl.run("slurm", "munge-key", "status").out());
    }

    @Test
    void aRefusalIsPrintedWithoutAStackTraceAndExitsOne() {
        leader.on(
                "POST",
                "/v1/slurm/munge-key/rotate",
                status(
                        409,
                        json(
                                ApiError.of(
                                        "the agent of n3 is older than munge key rotations: upgrade slurmlet there first; nothing was changed"))));
        var r = ctl.run("slurm", "munge-key", "rotate");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().contains("upgrade slurmlet there first; nothing was changed"), r::toString);
        assertTrue(!r.err().contains("at io.slurmlet"), r::toString);
        assertEquals("", r.out());
    }

    @Test
    void underJobsItAsksOnlyWhenToldToAndSaysTheLeadersRefusalOtherwise() {
        var r = ctl.run("slurm", "munge-key", "rotate", "--under-jobs");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("under_jobs=true", leader.requests("POST").get(0).query());
        leader.on(
                "POST",
                "/v1/slurm/munge-key/rotate",
                status(
                        409,
                        json(
                                ApiError.of(
                                        "1 job runs (17 of alice): a batch job that ends "
                                                + "within a fraction of a second of the switch can have its end refused by slurmctld, and Slurm then requeues it (24.11 and later; 22.05 sends it again, the job ends up to 15 s late); "
                                                + "rotate once squeue shows none, or say so with --under-jobs (under_jobs=true) to take that risk; nothing was changed"))));
        r = ctl.run("slurm", "munge-key", "rotate");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(null, leader.requests("POST").get(1).query(), "without --under-jobs, nothing asks for it");
        assertTrue(r.err().contains("or say so with --under-jobs"), r::toString);
    }

    @Test
    void withoutWhatToDoItSaysWhatItTakes() {
        var r = ctl.run("slurm", "munge-key");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("name what to do: status or rotate"), r::toString);
    }
}
