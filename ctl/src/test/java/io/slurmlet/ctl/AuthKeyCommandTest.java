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

/** {@code ctl slurm auth-key rotate} and {@code status} against a stub leader. */
class AuthKeyCommandTest {

    static final String ROTATED = """
            {"auth": "slurm", "generation": 5, "phase": "ADDED", "since": "2026-12-07T10:00:00Z", "signing_kid": "slurmlet-2",
             "kids": ["slurmlet-2", "slurmlet-3"], "rotation": 2, "requested": "2026-12-07T10:00:00Z", "by": "root over the leader's socket",
             "next_step": "slurmlet-3 signs once n0 (slurmctld), n1 (slurmd) load generation 5 (a machine that is down holds the rotation here; the old key keeps working)",
             "machines": [{"node": "n0", "daemons": {"slurmctld": "loaded generation 4"}},
                          {"node": "n1", "daemons": {"slurmd": "not reported"}}],
             "notes": ["rotation 2: generation 5 adds slurmlet-3 beside slurmlet-2, which still signs; once every slurmctld and slurmd loaded it, slurmlet-3 signs, and slurmlet-2 is dropped a token's lifetime later (jobs keep running throughout)",
                       "watch it: ctl slurm auth-key status"]}""";

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws java.io.IOException {
        leader = new StubLeader().on("POST", "/v1/slurm/auth-key/rotate", ok(ROTATED));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void rotateSaysWhatItDidWhatItWaitsForAndHowToWatchIt() {
        var r = ctl.run("slurm", "auth-key", "rotate");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                rotation 2: generation 5 adds slurmlet-3 beside slurmlet-2, which still signs; once every slurmctld and slurmd loaded it, slurmlet-3 signs, and slurmlet-2 is dropped a token's lifetime later (jobs keep running throughout)
                watch it: ctl slurm auth-key status

                auth slurm, generation 5, phase ADDED since 2026-12-07T10:00:00Z
                rotation 2, asked at 2026-12-07T10:00:00Z by root over the leader's socket
                keys: slurmlet-2 (signs), slurmlet-3
                next: slurmlet-3 signs once n0 (slurmctld), n1 (slurmd) load generation 5 (a machine that is down holds the rotation here; the old key keeps working)
                NODE  DAEMON     LOADED
                n0    slurmctld  loaded generation 4
                n1    slurmd     not reported
                0 of 2 daemons loaded generation 5
                """, r.out());
        assertEquals("", r.err());
        assertEquals("POST", leader.requests("POST").get(0).method());
        assertEquals(null, leader.requests("POST").get(0).query(), "nothing to say about jobs: it goes on under them");
        r = ctl.run("-o", "json", "slurm", "auth-key", "rotate");
        assertEquals(ROTATED + "\n", r.out(), "-o json prints the leader's answer as it is");
    }

    @Test
    void statusShowsWhatEachDaemonLoaded() {
        leader.on("GET", "/v1/slurm/auth-key", ok("""
                {"auth": "slurm", "generation": 6, "phase": "SWITCHED", "since": "2026-12-07T10:00:04Z", "signing_kid": "slurmlet-3",
                 "kids": ["slurmlet-2", "slurmlet-3"], "rotation": 2, "requested": "2026-12-07T10:00:00Z", "by": "root",
                 "next_step": "drops slurmlet-2 at 2026-12-07T10:01:35Z (token ttl and margin, 90 s, after every daemon loaded generation 6)",
                 "machines": [{"node": "n0", "daemons": {"slurmctld": "loaded generation 6", "slurmd": "loaded generation 6"}},
                              {"node": "n1", "daemons": {"slurmd": "loaded generation 6"}}], "notes": []}"""));
        var r = ctl.run("slurm", "auth-key", "status");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                auth slurm, generation 6, phase SWITCHED since 2026-12-07T10:00:04Z
                rotation 2, asked at 2026-12-07T10:00:00Z by root
                keys: slurmlet-2, slurmlet-3 (signs)
                next: drops slurmlet-2 at 2026-12-07T10:01:35Z (token ttl and margin, 90 s, after every daemon loaded generation 6)
                NODE  DAEMON     LOADED
                n0    slurmctld  loaded generation 6
                n0    slurmd     loaded generation 6
                n1    slurmd     loaded generation 6
                3 of 3 daemons loaded generation 6
                """, r.out());

        leader.on("GET", "/v1/slurm/auth-key", ok("""
                {"auth": "munge", "generation": 1, "phase": "STEADY", "since": "2026-12-07T09:00:00Z", "signing_kid": "slurmlet-1",
                 "kids": ["slurmlet-1"], "rotation": 0,
                 "next_step": "nothing: the cluster's first keys, never rotated (ctl slurm auth-key rotate makes a new one)",
                 "machines": [], "notes": []}"""));
        assertEquals("""
                auth munge, generation 1, phase STEADY since 2026-12-07T09:00:00Z
                Slurm authenticates with munge and does not use these keys (ctl slurm set auth=slurm)
                the cluster's first keys (never rotated)
                keys: slurmlet-1 (signs)
                next: nothing: the cluster's first keys, never rotated (ctl slurm auth-key rotate makes a new one)
                no machine runs slurmctld or slurmd with Slurm's keys
                """, ctl.run("slurm", "auth-key", "status").out());
    }

    @Test
    void aRefusalIsPrintedWithoutAStackTraceAndExitsOne() {
        leader.on(
                "POST",
                "/v1/slurm/auth-key/rotate",
                status(
                        409,
                        json(ApiError.of(
                                "Slurm runs auth=munge, which uses no keys of Slurm's own: ctl slurm munge-key "
                                        + "rotate rolls a new munge key; nothing was changed"))));
        var r = ctl.run("slurm", "auth-key", "rotate");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err().contains("ctl slurm munge-key rotate rolls a new munge key; nothing was changed"), r::toString);
        assertTrue(!r.err().contains("at io.slurmlet"), r::toString);
        assertEquals("", r.out());
    }

    @Test
    void withoutWhatToDoItSaysWhatItTakes() {
        var r = ctl.run("slurm", "auth-key");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("name what to do: status or rotate"), r::toString);
    }
}
