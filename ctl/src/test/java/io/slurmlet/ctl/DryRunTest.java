package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.conflict;
import static io.slurmlet.ctl.StubLeader.document;
import static io.slurmlet.ctl.StubLeader.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.Action;
import io.slurmlet.model.api.SettingsPreview.Change;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --dry-run}: the same patch as a preview; what each machine would do is printed, nothing stored. */
class DryRunTest {

    static final String DIFF = """
            --- a/etc/slurm/slurm.conf
            +++ b/etc/slurm/slurm.conf
            @@ -40,3 +40,3 @@
             NodeName=gpu3 CPUs=8 State=DRAIN Reason="slurmlet: not lent"
             # The one partition, every node of the settings
            -PartitionName=gpu Nodes=gpu[1-3] Default=YES MaxTime=INFINITE State=UP
            +PartitionName=batch Nodes=gpu[1-3] Default=YES MaxTime=INFINITE State=UP
            """;
    static final String RECONFIGURE =
            "scontrol reconfigure: slurmctld reads the new files and has every slurmd read them too";
    static final String BY_CONTROLLER = "the controller's scontrol reconfigure has it read the new files";

    static SlurmSettings renamed() {
        return new SlurmSettings(
                true,
                "slurmlet",
                "head1",
                SETTINGS.nodes(),
                false,
                SETTINGS.lent(),
                "batch",
                SETTINGS.shared(),
                "slurmlet",
                false,
                null);
    }

    static NodeChange changed(String node, String role, DaemonChange daemon) {
        return new NodeChange(
                node,
                List.of(role),
                List.of(role),
                List.of(new FileChange("/etc/slurm/slurm.conf", Change.CHANGED, DIFF)),
                List.of(daemon));
    }

    static final SettingsPreview RENAME = new SettingsPreview(
            7,
            true,
            renamed(),
            List.of(
                    changed("gpu1", "slurmd", new DaemonChange("slurmd", Action.RECONFIGURE, BY_CONTROLLER)),
                    changed("gpu2", "slurmd", new DaemonChange("slurmd", Action.RECONFIGURE, BY_CONTROLLER)),
                    changed("head1", "slurmctld", new DaemonChange("slurmctld", Action.RECONFIGURE, RECONFIGURE))),
            List.of(),
            List.of("gpu3 has no agent yet: install slurmlet-agent there and join it"));

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader()
                .on("GET", "/v1/slurm/settings", document(7, SETTINGS))
                .on("PATCH", "/v1/slurm/settings", ok(StubLeader.json(RENAME)));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void setSendsTheSamePatchAsADryRunOntoTheRevisionRead() {
        var r = ctl.run("slurm", "set", "partition=batch", "--dry-run");
        assertEquals(0, r.exit(), r::toString);
        var patches = leader.requests("PATCH");
        assertEquals(1, patches.size(), "one preview, and no write");
        assertEquals("dry_run=true", patches.get(0).query());
        assertEquals("{\"partition\":\"batch\"}", patches.get(0).body());
        assertEquals("\"7\"", patches.get(0).header("If-Match"));
        assertEquals("application/merge-patch+json", patches.get(0).header("Content-Type"));
    }

    @Test
    void setPrintsTheKeysEachMachinesDaemonsAndEachDiffOnce() {
        var r = ctl.run("slurm", "set", "partition=batch", "--dry-run");
        assertEquals("""
                would change revision 7:
                partition  gpu  ->  batch

                gpu1: reconfigure slurmd (the controller's scontrol reconfigure has it read the new files)
                gpu2: reconfigure slurmd (the controller's scontrol reconfigure has it read the new files)
                head1: reconfigure slurmctld (scontrol reconfigure: slurmctld reads the new files and has every slurmd read them too)

                gpu1, gpu2, head1: changed /etc/slurm/slurm.conf
                """ + DIFF + """

                notes:
                  gpu3 has no agent yet: install slurmlet-agent there and join it

                nothing was stored (dry run)
                """, r.out());
        assertEquals("", r.err());
    }

    @Test
    void restartsStartsNewFilesAndRoleChangesAreSaid() {
        SettingsPreview p = new SettingsPreview(
                7,
                true,
                SETTINGS,
                List.of(
                        new NodeChange(
                                "gpu4",
                                List.of(),
                                List.of("slurmd"),
                                List.of(
                                        new FileChange("/etc/munge/munge.key", Change.CREATED, null),
                                        new FileChange(
                                                "/etc/slurm/cgroup.conf",
                                                Change.CREATED,
                                                "--- /dev/null\n+++ b/etc/slurm/cgroup.conf\n@@ -0,0 +1,1 @@\n+ConstrainCores=yes\n")),
                                List.of(
                                        new DaemonChange("munge", Action.START, "munged does not run here yet"),
                                        new DaemonChange("slurmd", Action.START, "slurmd does not run here yet"))),
                        new NodeChange(
                                "gpu3",
                                List.of("slurmd"),
                                List.of(),
                                List.of(),
                                List.of(),
                                List.of(
                                        "unmount head1:/shared from /shared and remove its mount unit and slurmd's wait for it; systemd stops slurmd "
                                                + "with the mount (its RequiresMountsFor=)")),
                        new NodeChange(
                                "head1",
                                List.of("slurmctld"),
                                List.of("slurmctld"),
                                List.of(),
                                List.of(new DaemonChange(
                                        "slurmctld",
                                        Action.RESTART,
                                        "slurm.conf changes GresTypes, which slurmctld reads only at start")))),
                List.of(new Problem("nodes", "gpu4", "gpu4 runs Slurm 23.02.1, …")),
                List.of());
        leader.on("PATCH", "/v1/slurm/settings", ok(StubLeader.json(p)));
        var r = ctl.run("slurm", "set", "nodes=gpu1,gpu2,gpu4", "--dry-run");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().contains("""
                gpu4: roles none -> slurmd
                gpu4: start munge (munged does not run here yet)
                gpu4: start slurmd (slurmd does not run here yet)
                gpu3: roles slurmd -> none (its Slurm files stay; slurmlet stops none of its Slurm daemons itself)
                gpu3: unmount head1:/shared from /shared and remove its mount unit and slurmd's wait for it; systemd stops slurmd with the mount (its RequiresMountsFor=)
                head1: restart slurmctld (slurm.conf changes GresTypes, which slurmctld reads only at start)

                gpu4: created /etc/munge/munge.key (its content is not shown)

                gpu4: created /etc/slurm/cgroup.conf
                --- /dev/null
                +++ b/etc/slurm/cgroup.conf
                @@ -0,0 +1,1 @@
                +ConstrainCores=yes

                problems:
                  gpu4 runs Slurm 23.02.1, …

                nothing was stored (dry run)
                """), r::toString);
    }

    @Test
    void aChangeNoMachineFeelsSaysSo() {
        leader.on(
                "PATCH",
                "/v1/slurm/settings",
                ok(StubLeader.json(new SettingsPreview(7, false, SETTINGS, List.of(), List.of(), List.of()))));
        var r = ctl.run("slurm", "set", "enabled=true", "--dry-run");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                the settings are already so (revision 7)

                no machine would change
                nothing was stored (dry run)
                """, r.out());
        assertEquals(1, leader.requests("PATCH").size(), "the leader judges even a change ctl finds empty");
    }

    @Test
    void jsonIsThePreviewAsTheLeaderSentIt() {
        var r = ctl.run("slurm", "set", "partition=batch", "--dry-run", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(StubLeader.json(RENAME) + "\n", r.out());
    }

    @Test
    void aRefusedPreviewFailsAsARefusedSetDoes() {
        Problem bad =
                new Problem("partition", "ALL", "partition \"ALL\" is a word slurm.conf reserves: name it otherwise");
        leader.on("PATCH", "/v1/slurm/settings", StubLeader.refused("the settings were not changed: 1 problem", bad));
        var r = ctl.run("slurm", "set", "partition=ALL", "--dry-run");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(List.of("the settings were not changed: 1 problem", "  " + bad.message()), r.errLines());
        assertEquals("", r.out());
    }

    @Test
    void someoneElsesWriteInBetweenIsReadAgainAndPreviewedAgain() {
        leader.on("GET", "/v1/slurm/settings", document(7, SETTINGS), document(9, SETTINGS))
                .on("PATCH", "/v1/slurm/settings", conflict(9), ok(StubLeader.json(RENAME)));
        var r = ctl.run("slurm", "set", "partition=batch", "--dry-run");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                List.of("\"7\"", "\"9\""),
                leader.requests("PATCH").stream().map(p -> p.header("If-Match")).toList());
    }

    @Test
    void lendAndUnlendPreviewTheirPatch() {
        var r = ctl.run("slurm", "lend", "gpu2", "gpu1", "--dry-run");
        assertEquals(0, r.exit(), r::toString);
        var patch = leader.requests("PATCH").get(0);
        assertEquals("dry_run=true", patch.query());
        assertEquals("{\"lent\":[\"gpu1\",\"gpu2\"]}", patch.body());
        assertTrue(r.out().startsWith("gpu1 is already lent\ngpu1: reconfigure slurmd"), r::toString);
        assertTrue(r.out().endsWith("\nnothing was stored (dry run)\n"), r::toString);

        r = ctl.run("slurm", "unlend", "gpu1", "--dry-run");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("{\"lent\":[]}", leader.requests("PATCH").get(1).body());
        assertEquals("dry_run=true", leader.requests("PATCH").get(1).query());
    }
}
