package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.json;
import static io.slurmlet.ctl.StubLeader.ok;
import static io.slurmlet.ctl.StubLeader.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.JoinInfo;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ctl slurm join-token …} and {@code ctl slurm machines …} against a stub leader. */
class JoinCommandsTest {

    static final String TOKEN = "4k2j9x0a." + "s".repeat(43);
    static final JoinInfo MADE = new JoinInfo(
            "https://n0:7818",
            TOKEN,
            "sha256:" + "0".repeat(64),
            "slurmlet-agent join --leader https://n0:7818 --token " + TOKEN + " --ca-hash sha256:" + "0".repeat(64),
            "4k2j9x0a",
            "2026-12-02T12:00:00Z");

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws java.io.IOException {
        leader = new StubLeader().on("POST", "/v1/join-tokens", status(201, json(MADE)));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void joinTokenMakesOneAndPrintsTheLineAloneOnStandardOutput() {
        var r = ctl.run("slurm", "join-token");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(MADE.command() + "\n", r.out());
        assertTrue(r.err().contains("join token 4k2j9x0a: works until 2026-12-02T12:00:00Z"), r::toString);
        assertEquals("{}", leader.requests("POST").get(0).body());
        r = ctl.run("slurm", "join-token", "create", "--ttl", "2h", "--description", "rack 12");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"ttl\":\"2h\",\"description\":\"rack 12\"}",
                leader.requests("POST").get(1).body());
    }

    @Test
    void aRefusedTtlIsSaidAndExitsOne() {
        leader.on(
                "POST",
                "/v1/join-tokens",
                status(400, json(ApiError.of("no join token was made: ttl \"31d\" is not a time from 1s to 30d"))));
        var r = ctl.run("slurm", "join-token", "create", "--ttl", "31d");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().contains("ttl \"31d\" is not a time from 1s to 30d"), r::toString);
    }

    @Test
    void listShowsNoSecretAndRevokeNamesTheToken() {
        leader.on("GET", "/v1/join-tokens", ok("""
                {"tokens": [{"id": "4k2j9x0a", "description": "rack 12", "created": "2026-12-01T12:00:00Z",
                 "expires": "2026-12-02T12:00:00Z", "expired": false},
                {"id": "initial0", "description": "", "created": "2026-11-01T12:00:00Z",
                 "expires": "2026-11-02T12:00:00Z", "expired": true}]}"""))
                .on("DELETE", "/v1/join-tokens/4k2j9x0a", ok("{\"id\": \"4k2j9x0a\", \"revoked\": true}"))
                .on(
                        "DELETE",
                        "/v1/join-tokens/nope",
                        status(
                                404,
                                json(ApiError.of(
                                        "there is no join token \"nope\": ctl slurm join-token list shows them"))));
        assertEquals("""
                ID        EXPIRES               STATE    DESCRIPTION
                4k2j9x0a  2026-12-02T12:00:00Z  live     rack 12
                initial0  2026-11-02T12:00:00Z  expired
                """, ctl.run("slurm", "join-token", "list").out());
        var r = ctl.run("slurm", "join-token", "revoke", "4k2j9x0a");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("revoked join token 4k2j9x0a: no machine joins with it any more\n", r.out());
        r = ctl.run("slurm", "join-token", "revoke", "nope");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().contains("there is no join token \"nope\""), r::toString);
    }

    @Test
    void machinesListAndRemoveOrSayWhyNot() {
        leader.on("GET", "/v1/machines", ok("{\"machines\": [\"n1\", \"n2\"], \"removed\": []}"))
                .on("DELETE", "/v1/machines/n1", ok(REMOVED_N1))
                .on(
                        "DELETE",
                        "/v1/machines/n2",
                        status(
                                409,
                                json(ApiError.of(
                                        "n2 runs 1 job (7): removing it would drop it from slurm.conf and end them"))));
        assertEquals("n1\nn2\n", ctl.run("slurm", "machines", "list").out());
        var r = ctl.run("slurm", "machines", "remove", "n1");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                removed n1: its credential revoked, its facts forgotten; its name is refused until an admin allows it again (ctl slurm machines allow n1)
                join token 4k2j9x0a, which it joined with, is revoked: no machine joins with it any more, and the machines that joined with it keep their credentials
                the munge key it held is still the cluster's: if the machine is not trusted, roll a new one to every machine with ctl slurm munge-key rotate
                """, r.out());
        assertEquals("", r.err());
        r = ctl.run("slurm", "machines", "remove", "n2");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().contains("n2 runs 1 job (7)"), r::toString);
        r = ctl.run("-o", "json", "slurm", "machines", "remove", "n1");
        assertEquals(REMOVED_N1 + "\n", r.out(), "-o json prints the leader's answer as it is");
    }

    static final String REMOVED_N1 = """
            {"node": "n1", "credential_revoked": true, "facts_forgotten": true, "join_token": "4k2j9x0a", "join_token_revoked": true, "notes": [
             "removed n1: its credential revoked, its facts forgotten; its name is refused until an admin allows it again (ctl slurm machines allow n1)",
             "join token 4k2j9x0a, which it joined with, is revoked: no machine joins with it any more, and the machines that joined with it keep their credentials",
             "the munge key it held is still the cluster's: if the machine is not trusted, roll a new one to every machine with ctl slurm munge-key rotate"]}""";

    @Test
    void machinesListShowsTheRemovedNamesApartWithTheTokenRevoked() {
        leader.on("GET", "/v1/machines", ok("""
                {"machines": ["n1"], "removed": [
                 {"node": "n3", "removed": "2026-12-01T12:00:00Z", "by": "root over the leader's socket", "join_token": "4k2j9x0a"},
                 {"node": "old7", "removed": "2026-12-02T08:30:00Z", "by": "the admin token from /10.0.0.5:40112", "join_token": ""}]}"""));
        var r = ctl.run("slurm", "machines", "list");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                n1

                removed, their names refused until an admin allows them again (ctl slurm machines allow NODE):
                NODE  REMOVED               BY                                    JOIN TOKEN REVOKED
                n3    2026-12-01T12:00:00Z  root over the leader's socket         4k2j9x0a
                old7  2026-12-02T08:30:00Z  the admin token from /10.0.0.5:40112  none
                """, r.out());
        leader.on(
                "GET",
                "/v1/machines",
                ok("{\"machines\": [], \"removed\": [{\"node\": \"n3\", \"removed\": \"t\", \"by\": \"root\", "
                        + "\"join_token\": \"\"}]}"));
        assertTrue(ctl.run("slurm", "machines", "list").out().startsWith("""
                no machine has joined: 'ctl slurm join-token' prints the line that joins one

                removed, their names refused"""));
    }

    @Test
    void machinesAllowLetsARemovedNameJoinAgainOrSaysWhyNot() {
        leader.on("POST", "/v1/machines/n3/allow", ok("""
                        {"node": "n3", "allowed": true, "notes": ["allowed n3: it may join again with a join token ('ctl slurm join-token' prints the line that joins it)"]}"""))
                .on(
                        "POST",
                        "/v1/machines/n1/allow",
                        status(
                                404,
                                json(
                                        ApiError.of(
                                                "\"n1\" was not removed, so nothing is allowed: "
                                                        + "ctl slurm machines list shows the removed names; a machine that has joined is removed with ctl slurm machines remove"))));
        var r = ctl.run("slurm", "machines", "allow", "n3");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "allowed n3: it may join again with a join token ('ctl slurm join-token' prints the line that joins it)\n",
                r.out());
        assertEquals("", leader.requests("POST").get(0).body(), "nothing but the name in the path");
        r = ctl.run("slurm", "machines", "allow", "n1");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .contains(
                                "\"n1\" was not removed, so nothing is allowed: ctl slurm machines list shows the removed names"),
                r::toString);
        assertEquals("", r.out());
        r = ctl.run("slurm", "machines", "allow");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().contains("Missing required parameter: 'NODE'"), r::toString);
        r = ctl.run("slurm", "machines");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("name what to do: list, remove or allow"), r::toString);
    }

    /** A leader older than removals answers without notes, and frees the name at once: ctl says what it did, no more. */
    @Test
    void aLeaderOlderThanRemovalsIsSaidWhatItDid() {
        leader.on(
                        "DELETE",
                        "/v1/machines/n1",
                        ok("{\"node\": \"n1\", \"credential_revoked\": true, \"facts_forgotten\": true}"))
                .on("GET", "/v1/machines", ok("{\"machines\": [\"n2\"]}"));
        assertEquals(
                "removed n1: its credential revoked, its facts forgotten; it can join again with a join token\n",
                ctl.run("slurm", "machines", "remove", "n1").out());
        assertEquals("n2\n", ctl.run("slurm", "machines", "list").out());
    }
}
