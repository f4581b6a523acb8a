package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.document;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShowCommandTest {

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader().on("GET", "/v1/slurm/settings", document(7, SETTINGS));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void showsEveryKeyAsSetSpellsItWithItsValue() {
        var r = ctl.run("slurm", "show");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                revision 7
                KEY                              VALUE
                enabled                          true
                cluster_name                     slurmlet
                controller                       head1
                nodes                            gpu1,gpu2,gpu3
                all_nodes                        false
                lent                             gpu1
                partition                        gpu
                shared.path                      /shared
                shared.nfs                       (empty)
                shared.server                    (empty)
                users                            slurmlet
                containers                       false
                experimental.enable_async_reply  false
                auth                             munge
                """, r.out());
        assertEquals("", r.err());
    }

    @Test
    void jsonIsTheLeadersAnswerAsItSentIt() {
        var r = ctl.run("slurm", "show", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(StubLeader.json(new io.slurmlet.model.api.SettingsDocument(7, SETTINGS)) + "\n", r.out());
    }

    @Test
    void theCommonOptionsMayComeAnywhereOnTheLine() {
        String token = CtlRunner.tokenFile(dir).toString();
        String json = StubLeader.json(new io.slurmlet.model.api.SettingsDocument(7, SETTINGS)) + "\n";
        var first = ctl.runExactly("--leader", leader.url(), "--token-file", token, "-o", "json", "slurm", "show");
        assertEquals(0, first.exit(), first::toString);
        assertEquals(json, first.out());
        var middle = ctl.runExactly("slurm", "--leader", leader.url(), "-o", "json", "show", "--token-file", token);
        assertEquals(0, middle.exit(), middle::toString);
        assertEquals(json, middle.out());
        var last = ctl.runExactly("slurm", "show", "--leader", leader.url(), "--token-file", token, "--output=json");
        assertEquals(0, last.exit(), last::toString);
        assertEquals(json, last.out());
        assertEquals(
                3,
                leader.requests.stream()
                        .filter(r -> ("Bearer " + CtlRunner.TOKEN).equals(r.header("Authorization")))
                        .count());
    }

    @Test
    void sendsTheTokenOverTcpAsABearerToken() {
        ctl.run("slurm", "show");
        var get = leader.requests("GET").get(0);
        assertEquals("/v1/slurm/settings", get.path());
        assertEquals("Bearer " + CtlRunner.TOKEN, get.header("Authorization"));
        assertEquals("application/json", get.header("Accept"));
    }
}
