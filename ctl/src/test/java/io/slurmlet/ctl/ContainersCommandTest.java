package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.SETTINGS;
import static io.slurmlet.ctl.StubLeader.document;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainersCommandTest {

    static final SlurmSettings WITH_CONTAINERS = new SlurmSettings(
            SETTINGS.enabled(),
            SETTINGS.clusterName(),
            SETTINGS.controller(),
            SETTINGS.nodes(),
            false,
            SETTINGS.lent(),
            SETTINGS.partition(),
            SETTINGS.shared(),
            SETTINGS.users(),
            true,
            SETTINGS.experimental());

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader();
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    @Test
    void onPatchesContainersTrue() {
        leader.on("PATCH", "/v1/slurm/settings", document(8, WITH_CONTAINERS));
        var r = ctl.run("slurm", "containers", "on");
        assertEquals(0, r.exit(), r::toString);
        var patch = leader.requests("PATCH").get(0);
        assertEquals("{\"containers\":true}", patch.body());
        assertEquals("application/merge-patch+json", patch.header("Content-Type"));
        assertNull(patch.header("If-Match"));
        assertEquals("containers on (revision 8)\n", r.out());
    }

    @Test
    void offPatchesContainersFalse() {
        leader.on("PATCH", "/v1/slurm/settings", document(9, SETTINGS));
        var r = ctl.run("slurm", "containers", "off");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("{\"containers\":false}", leader.requests("PATCH").get(0).body());
        assertEquals("containers off (revision 9)\n", r.out());
    }

    @Test
    void statusShowsWhatEachSlurmMachineHasAndWhatLoadingPyxisWaitsFor() {
        leader.on("GET", "/v1/slurm/settings", document(8, WITH_CONTAINERS));
        var ready = new io.slurmlet.model.facts.ContainerFacts("4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true);
        var status = new io.slurmlet.model.api.SlurmStatus(
                8,
                true,
                "lab",
                "c0",
                "gpu",
                List.of(
                        new io.slurmlet.model.api.SlurmStatus.NodeStatus(
                                "c0", List.of("slurmctld"), false, "24.11.5", "", 3, List.of(), ready, 0),
                        new io.slurmlet.model.api.SlurmStatus.NodeStatus(
                                "g1", List.of("slurmd"), true, "24.11.5", "", 3, List.of(), ready, 8),
                        new io.slurmlet.model.api.SlurmStatus.NodeStatus(
                                "g2",
                                List.of("slurmd"),
                                true,
                                "24.11.5",
                                "",
                                3,
                                List.of(),
                                new io.slurmlet.model.facts.ContainerFacts(
                                        "4.1.2", "0.24.0", "24.11.5", "e".repeat(64), true, "1.17.8"),
                                8),
                        new io.slurmlet.model.api.SlurmStatus.NodeStatus(
                                "n1",
                                List.of("slurmd"),
                                true,
                                "24.11.5",
                                "",
                                3,
                                List.of(
                                        new io.slurmlet.model.api.StepStatus(
                                                "slurm", "unchanged", "slurm.conf as planned", "", "", ""),
                                        new io.slurmlet.model.api.StepStatus(
                                                "containers",
                                                "failed",
                                                "failed",
                                                "",
                                                "enroot_4.1.2-1_amd64.deb from "
                                                        + "http://mirror/ has sha256 0b3c…, not a51f… as the table pins: refused, nothing installed",
                                                "")),
                                null,
                                0),
                        new io.slurmlet.model.api.SlurmStatus.NodeStatus(
                                "other", List.of(), false, "", "", 3, List.of(), null, 0)),
                List.of(),
                List.of(
                        "containers: Slurm loads pyxis once every Slurm machine has it; waiting for g1 (nvidia-container-cli "
                                + "(it has NVIDIA GPUs)), n1 (enroot, pyxis, slurmlet's prolog)"));
        leader.on("GET", "/v1/slurm/status", StubLeader.ok(StubLeader.json(status)));
        var r = ctl.run("slurm", "containers", "status");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                containers on
                NODE  SLURM    ENROOT  PYXIS   BUILT FOR  PLUGIN SHA256  PROLOG  GPUS  NVIDIA CLI  READY
                c0    24.11.5  4.1.2   0.24.0  24.11.5    eeeeeeeeeeee   yes     0     not needed  yes
                g1    24.11.5  4.1.2   0.24.0  24.11.5    eeeeeeeeeeee   yes     8     -           no
                g2    24.11.5  4.1.2   0.24.0  24.11.5    eeeeeeeeeeee   yes     8     1.17.8      yes
                n1    24.11.5  -       -       -          -              no      0     not needed  no
                pyxis's plugin is /usr/local/lib/slurm/spank_pyxis.so on every machine (where plugstack.conf names it); PLUGIN SHA256 is the start of that file's sha256 (--json: all of it)

                the containers step failed on:
                  n1: enroot_4.1.2-1_amd64.deb from http://mirror/ has sha256 0b3c…, not a51f… as the table pins: refused, nothing installed

                Slurm loads pyxis once every Slurm machine has it; waiting for g1 (nvidia-container-cli (it has NVIDIA GPUs)), n1 (enroot, pyxis, slurmlet's prolog)
                """, r.out());
        assertEquals(List.of(), leader.requests("PATCH"));
    }

    @Test
    void statusListsTheFilesTheLeaderHolds() {
        leader.on("GET", "/v1/slurm/settings", document(8, SETTINGS));
        leader.on(
                "GET",
                "/v1/slurm/status",
                StubLeader.ok(StubLeader.json(new io.slurmlet.model.api.SlurmStatus(
                        8, true, "lab", "c0", "gpu", List.of(), List.of(), List.of()))));
        leader.on(
                "GET",
                "/v1/slurm/containers/files",
                StubLeader.ok(StubLeader.json(List.of(new io.slurmlet.model.api.ContainerFile(
                        "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", "a".repeat(64), 98132)))));
        var r = ctl.run("slurm", "containers", "status");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().contains("""
                the leader holds (ctl slurm containers import), and machines fetch from it:
                FILE                      NAME    VERSION  ARCH   BYTES  SHA256
                enroot_4.1.2-1_amd64.deb  enroot  4.1.2    amd64  98132  %s
                """.formatted("a".repeat(64))), r::toString);
    }

    @Test
    void importSendsEachFileWithTheDigestItsSumsListAfterCheckingEveryOneHere() throws IOException {
        Path deb = java.nio.file.Files.writeString(dir.resolve("enroot_4.1.2-1_amd64.deb"), "enroot's package");
        Path tarball = java.nio.file.Files.writeString(dir.resolve("pyxis-0.24.0.tar.gz"), "pyxis's source");
        String debSha =
                ContainersImportCommand.sha256("enroot's package".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String tarSha =
                ContainersImportCommand.sha256("pyxis's source".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Path sums = java.nio.file.Files.writeString(
                dir.resolve("SHA256SUMS"),
                debSha + "  enroot_4.1.2-1_amd64.deb\n" + tarSha + " *dist/pyxis-0.24.0.tar.gz\n");
        leader.on(
                "PUT",
                "/v1/slurm/containers/files/enroot_4.1.2-1_amd64.deb",
                StubLeader.ok(StubLeader.json(new io.slurmlet.model.api.ContainerFile(
                        "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", debSha, 16))));
        leader.on(
                "PUT",
                "/v1/slurm/containers/files/pyxis-0.24.0.tar.gz",
                StubLeader.ok(StubLeader.json(new io.slurmlet.model.api.ContainerFile(
                        "pyxis", "0.24.0", "all", "source", "pyxis-0.24.0.tar.gz", tarSha, 14))));
        var r = ctl.run("slurm", "containers", "import", "--sums", sums.toString(), deb.toString(), tarball.toString());
        assertEquals(0, r.exit(), r::toString);
        var puts = leader.requests("PUT");
        assertEquals(2, puts.size());
        assertEquals("enroot's package", puts.get(0).body());
        assertEquals("application/octet-stream", puts.get(0).header("Content-Type"));
        assertEquals("sha256=" + debSha, puts.get(0).query());
        assertEquals("sha256=" + tarSha, puts.get(1).query());
        assertEquals("""
                imported enroot 4.1.2 amd64 (enroot_4.1.2-1_amd64.deb, 16 bytes, sha256 %s)
                imported pyxis 0.24.0 all (pyxis-0.24.0.tar.gz, 14 bytes, sha256 %s)
                every Slurm machine fetches these from the leader (ctl slurm containers status)
                """.formatted(debSha, tarSha), r.out());

        // A file that is not the one its sums list, or that they leave out: nothing at all is sent.
        java.nio.file.Files.writeString(tarball, "a trojan");
        r = ctl.run("slurm", "containers", "import", "--sums", sums.toString(), deb.toString(), tarball.toString());
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .contains(tarball + " has sha256 "
                                + ContainersImportCommand.sha256(
                                        "a trojan".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                                + ", and " + sums + " lists " + tarSha + ": nothing was sent"),
                r::toString);
        Path other = java.nio.file.Files.writeString(dir.resolve("enroot+caps_4.1.2-1_amd64.deb"), "caps");
        r = ctl.run("slurm", "containers", "import", "--sums", sums.toString(), other.toString());
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err().contains(sums + " lists no digest for enroot+caps_4.1.2-1_amd64.deb: nothing was sent"),
                r::toString);
        assertEquals(2, leader.requests("PUT").size());
    }

    @Test
    void importSaysWhatTheLeaderRefusedAndWhatItKeptBefore() throws IOException {
        Path deb = java.nio.file.Files.writeString(dir.resolve("enroot_4.1.2-1_amd64.deb"), "enroot's package");
        Path caps = java.nio.file.Files.writeString(dir.resolve("enroot+caps_4.1.2-1_amd64.deb"), "caps");
        leader.on(
                "PUT",
                "/v1/slurm/containers/files/enroot_4.1.2-1_amd64.deb",
                StubLeader.ok(StubLeader.json(new io.slurmlet.model.api.ContainerFile(
                        "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", "a".repeat(64), 16))));
        leader.on(
                "PUT",
                "/v1/slurm/containers/files/enroot+caps_4.1.2-1_amd64.deb",
                StubLeader.refused(
                        "this release's table pins no sha256 for enroot+caps_4.1.2-1_amd64.deb, and nothing unverified is installed"));
        var r = ctl.run("slurm", "containers", "import", deb.toString(), caps.toString());
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err().contains("the leader keeps what it was handed before: enroot_4.1.2-1_amd64.deb"), r::toString);
        assertTrue(
                r.err()
                        .contains(
                                "pins no sha256 for enroot+caps_4.1.2-1_amd64.deb, and nothing unverified is installed"),
                r::toString);
        assertNull(leader.requests("PUT").get(0).query(), "no --sums: no digest sent");
    }

    @Test
    void anythingElseIsBadUsage() {
        var r = ctl.run("slurm", "containers", "yes");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().contains("expected one of [on, off, status]"), r::toString);
        assertTrue(r.err().contains("See 'ctl slurm containers --help'."), r::toString);
        r = ctl.run("slurm", "containers");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(List.of(), leader.requests);
    }
}
