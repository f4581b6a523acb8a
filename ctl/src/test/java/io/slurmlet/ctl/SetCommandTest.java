package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.conflict;
import static io.slurmlet.ctl.StubLeader.document;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.SettingKey;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SetCommandTest {

    static final SlurmSettings CHANGED = new SlurmSettings(
            true,
            "slurmlet",
            "head2",
            List.of("gpu1", "gpu2"),
            false,
            List.of("gpu1"),
            "gpu",
            new SharedStorage("/data", "", ""),
            "slurmlet",
            false,
            new Experimental(true));

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader()
                .on("GET", "/v1/slurm/settings", document(7, SETTINGS))
                .on("PATCH", "/v1/slurm/settings", document(8, CHANGED));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void sendsOneMergePatchWithNestedObjectsOntoTheRevisionRead() {
        var r = ctl.run(
                "slurm",
                "set",
                "controller=head2",
                "shared.path=/data",
                "nodes=gpu1, gpu2",
                "experimental.enable_async_reply=yes");
        assertEquals(0, r.exit(), r::toString);
        var patches = leader.requests("PATCH");
        assertEquals(1, patches.size());
        assertEquals(
                "{\"controller\":\"head2\",\"shared\":{\"path\":\"/data\"},\"nodes\":[\"gpu1\",\"gpu2\"],"
                        + "\"experimental\":{\"enable_async_reply\":true}}",
                patches.get(0).body());
        assertEquals("application/merge-patch+json", patches.get(0).header("Content-Type"));
        assertEquals("\"7\"", patches.get(0).header("If-Match"));
    }

    @Test
    void printsTheNewRevisionAndWhatChanged() {
        var r = ctl.run(
                "slurm",
                "set",
                "controller=head2",
                "shared.path=/data",
                "nodes=gpu1,gpu2",
                "experimental.enable_async_reply=true");
        assertEquals("""
                revision 8 (was 7)
                controller                       head1           ->  head2
                nodes                            gpu1,gpu2,gpu3  ->  gpu1,gpu2
                shared.path                      /shared         ->  /data
                experimental.enable_async_reply  false           ->  true
                """, r.out());
        assertEquals("", r.err());
    }

    @Test
    void siteSlurmConfLinesAreSetAndClearedOneByOne() {
        leader.on(
                "PATCH",
                "/v1/slurm/settings",
                document(
                        8,
                        new SlurmSettings(
                                true,
                                null,
                                "head1",
                                SETTINGS.nodes(),
                                false,
                                SETTINGS.lent(),
                                null,
                                SETTINGS.shared(),
                                "slurmlet",
                                false,
                                null,
                                java.util.Map.of("MaxJobCount", "50000"))));
        var r = ctl.run("slurm", "set", "slurm_conf.MaxJobCount=50000", "slurm_conf.KillWait=");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"slurm_conf\":{\"MaxJobCount\":\"50000\",\"KillWait\":null}}",
                leader.requests("PATCH").get(0).body());
        assertTrue(r.out().contains("slurm_conf.MaxJobCount  (empty)  ->  50000"), r::toString);
    }

    @Test
    void slurmConfWithoutANameIsBadUsage() {
        var r = ctl.run("slurm", "set", "slurm_conf.=1");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err().startsWith("slurm_conf. needs a slurm.conf key after it, as slurm_conf.MaxJobCount=50000"),
                r::toString);
        assertEquals(2, ctl.run("slurm", "set", "slurm_conf=x").exit());
    }

    @Test
    void anEmptyValueSendsNullToClearTheKey() {
        leader.on(
                "PATCH",
                "/v1/slurm/settings",
                document(
                        8,
                        new SlurmSettings(
                                true,
                                null,
                                "head1",
                                SETTINGS.nodes(),
                                false,
                                SETTINGS.lent(),
                                null,
                                SharedStorage.NONE,
                                "slurmlet",
                                false,
                                null)));
        var r = ctl.run("slurm", "set", "shared.path=", "users=");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"shared\":{\"path\":null},\"users\":null}",
                leader.requests("PATCH").get(0).body());
        assertTrue(r.out().contains("shared.path  /shared  ->  (empty)"), r::toString);
    }

    @Test
    void aSettingThatIsAlreadySoWritesNothing() {
        var r = ctl.run("slurm", "set", "enabled=true", "controller=head1");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("nothing to change: the settings are already so (revision 7)\n", r.out());
        assertEquals(List.of(), leader.requests("PATCH"));
    }

    @Test
    void anUnknownKeyIsBadUsageWithTheNearKeyAndTheList() {
        var r = ctl.run("slurm", "set", "enabeld=true");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "unknown key 'enabeld': did you mean enabled?", r.errLines().get(0));
        assertEquals(
                "The keys: " + SettingKey.all() + " ('ctl slurm show' shows their values).",
                r.errLines().get(1));
        assertTrue(r.err().contains("See 'ctl slurm set --help'."), r::toString);
        assertEquals(List.of(), leader.requests, "nothing is asked of the leader");
    }

    @Test
    void aGroupIsNotAKey() {
        var r = ctl.run("slurm", "set", "shared=/data");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "'shared' is not a key itself: the keys under it are shared.path, shared.nfs, shared.server",
                r.errLines().get(0));
    }

    @Test
    void aBadBooleanIsBadUsageSayingWhatItTakes() {
        var r = ctl.run("slurm", "set", "enabled=maybe");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "enabled=maybe is not true or false: write enabled=true or enabled=false",
                r.errLines().get(0));
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void aKeyWithoutAValueOrGivenTwiceIsBadUsage() {
        var r = ctl.run("slurm", "set", "enabled");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "'enabled' has no value: write enabled=VALUE, or enabled= to clear it back to its default",
                r.errLines().get(0));
        r = ctl.run("slurm", "set", "nodes=a", "nodes=b");
        assertEquals(2, r.exit(), r::toString);
        assertEquals("nodes is given twice: give each key once", r.errLines().get(0));
        r = ctl.run("slurm", "set");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("Missing required parameter: 'KEY=VALUE'"), r::toString);
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void someoneElsesWriteInBetweenIsReadAgainAndRetried() {
        leader.on("GET", "/v1/slurm/settings", document(7, SETTINGS), document(9, SETTINGS))
                .on("PATCH", "/v1/slurm/settings", conflict(9), document(10, CHANGED));
        var r = ctl.run("slurm", "set", "controller=head2");
        assertEquals(0, r.exit(), r::toString);
        var patches = leader.requests("PATCH");
        assertEquals(
                List.of("\"7\"", "\"9\""),
                patches.stream().map(p -> p.header("If-Match")).toList());
        assertTrue(r.out().startsWith("revision 10 (was 9)"), r::toString);
    }

    @Test
    void jsonIsTheLeadersAnswerToTheWrite() {
        var r = ctl.run("slurm", "set", "controller=head2", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(StubLeader.json(new io.slurmlet.model.api.SettingsDocument(8, CHANGED)) + "\n", r.out());
    }

    @Test
    void nearMissesFindTheirKey() {
        assertEquals(Optional.of(SettingKey.CLUSTER_NAME), SetCommand.nearest("cluster-name"));
        assertEquals(Optional.of(SettingKey.SHARED_PATH), SetCommand.nearest("path"));
        assertEquals(Optional.of(SettingKey.NODES), SetCommand.nearest("node"));
        assertEquals(Optional.of(SettingKey.CONTAINERS), SetCommand.nearest("container"));
        assertEquals(Optional.of(SettingKey.EXPERIMENTAL_ENABLE_ASYNC_REPLY), SetCommand.nearest("enable_async_reply"));
        assertEquals(Optional.empty(), SetCommand.nearest("colour"));
    }
}
