package io.slurmlet.agent.containers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArtifactTableTest {

    @TempDir
    Path dir;

    static final String SITE = """
            {"release": "site", "artifacts": [
              {"name": "enroot", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot_4.1.2-1_amd64.deb", "sha256": "%s"},
              {"name": "enroot+caps", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot+caps_4.1.2-1_amd64.deb", "sha256": "%s"},
              {"name": "pyxis", "version": "0.24.0", "arch": "all", "format": "source", "file": "pyxis-0.24.0.tar.gz", "sha256": "%s"},
              {"name": "enroot", "version": "4.1.2", "arch": "arm64", "format": "deb", "file": "enroot_4.1.2-1_arm64.deb", "sha256": null}
            ]}
            """.formatted("a".repeat(64), "b".repeat(64), "c".repeat(64));

    @Test
    void thisReleasesTableKnowsNoDigestSoContainersCannotBeTurnedOnAndItSaysWhatToGive() throws IOException {
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        assertEquals(List.of(), release.pinned(List.of(), ""));
        String why = release.unusable(List.of(), List.of()).orElseThrow();
        assertTrue(why.contains("no mirror is configured to fetch enroot and pyxis from, and the leader holds no enroot, enroot+caps, pyxis: set "
                + "slurmlet.leader.containers.mirror"), why);
        assertTrue(why.contains("this release's table has no sha256 for enroot, enroot+caps, pyxis, and nothing unverified is installed"), why);
    }

    @Test
    void aSitesTableWithAMirrorGivesEveryPinnedFileItsUrlAndLeavesOutOneWithoutADigest() throws IOException {
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        ArtifactTable site = ArtifactTable.load(Optional.of(table), Optional.of("http://10.77.0.2:8080/slurmlet"));
        assertEquals(Optional.empty(), site.unusable(List.of(), List.of()));
        // With GPU machines among the Slurm machines, nvidia-container-cli's packages must be pinned too.
        String gpus = site.unusable(List.of("gpu1", "gpu2"), List.of()).orElseThrow();
        assertTrue(gpus.equals("gpu1, gpu2 have NVIDIA GPUs, where containers need nvidia-container-cli, and " + table
                + " has no sha256 for libnvidia-container1, libnvidia-container-tools: add them, with the digests of the "
                + "files your mirror serves (slurmlet.leader.containers.table), or import them (ctl slurm containers import --sums "
                + "SHA256SUMS FILE...)"), gpus);
        assertEquals(List.of("http://10.77.0.2:8080/slurmlet/enroot_4.1.2-1_amd64.deb", "http://10.77.0.2:8080/slurmlet/enroot+caps_4.1.2-1_amd64.deb",
                "http://10.77.0.2:8080/slurmlet/pyxis-0.24.0.tar.gz"), site.pinned(List.of(), "").stream().map(a -> a.url()).toList());
    }

    @Test
    void aRowThatCouldNameAnotherFolderOrIsNoDigestIsRefusedWhenTheTableIsRead() throws IOException {
        for (String[] bad : List.of(new String[]{"pyxis-0.24.0.tar.gz", "../../etc/shadow"}, new String[]{"c".repeat(64), "C".repeat(64)},
                new String[]{"\"source\"", "\"zip\""})) {
            Path table = Files.writeString(dir.resolve("bad.json"), SITE.replace(bad[0], bad[1]));
            IOException e = assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(table), Optional.of("http://m/")));
            assertTrue(e.getMessage().startsWith("the artifact table " + table + ", row 2: artifact pyxis"), e.getMessage());
        }
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        IOException mirror = assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(table), Optional.of("ftp://m/")));
        assertTrue(mirror.getMessage().startsWith("slurmlet.leader.containers.mirror \"ftp://m/\" is not an http or https URL"), mirror.getMessage());
        Path unknownKey = Files.writeString(dir.resolve("key.json"), SITE.replace("\"release\"", "\"relase\""));
        assertTrue(assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(unknownKey), Optional.empty())).getMessage()
                .contains("relase"));
    }

    @Test
    void aFileTheLeaderHoldsIsFetchedFromTheLeaderAndMakesContainersUsableWithoutAMirror() throws IOException {
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        String enroot = "1".repeat(64);
        List<io.slurmlet.model.api.ContainerFile> held = List.of(
                new io.slurmlet.model.api.ContainerFile("enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", enroot, 98132),
                new io.slurmlet.model.api.ContainerFile("enroot+caps", "4.1.2", "amd64", "deb", "enroot+caps_4.1.2-1_amd64.deb", "2".repeat(64), 4804));
        String why = release.unusable(List.of(), held).orElseThrow();
        assertTrue(why.startsWith("no mirror is configured to fetch enroot and pyxis from, and the leader holds no pyxis: "), why);
        assertTrue(why.contains("this release's table has no sha256 for pyxis, and"), why);
        List<io.slurmlet.model.api.ContainerFile> all = new java.util.ArrayList<>(held);
        all.add(new io.slurmlet.model.api.ContainerFile("pyxis", "0.24.0", "all", "source", "pyxis-0.24.0.tar.gz", "3".repeat(64), 48133));
        assertEquals(Optional.empty(), release.unusable(List.of(), all));
        assertTrue(release.unusable(List.of("gpu1"), all).orElseThrow().contains("the leader holds no libnvidia-container1, libnvidia-container-tools"));
        assertEquals(List.of("https://10.77.0.1:7818/v1/agent/containers/files/" + enroot + "/enroot_4.1.2-1_amd64.deb"),
                release.pinned(all, "https://10.77.0.1:7818").stream().filter(a -> a.name().equals("enroot")).map(a -> a.url()).toList());

        // A site's table: a held file is the leader's to serve only with the digest the table pins; the rest come from the mirror.
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        ArtifactTable site = ArtifactTable.load(Optional.of(table), Optional.of("http://10.77.0.2:8080/slurmlet"));
        List<io.slurmlet.model.api.ContainerFile> pinnedOne = List.of(new io.slurmlet.model.api.ContainerFile("enroot", "4.1.2", "amd64", "deb",
                "enroot_4.1.2-1_amd64.deb", "a".repeat(64), 98132));
        assertEquals(List.of("https://l:7818/v1/agent/containers/files/" + "a".repeat(64) + "/enroot_4.1.2-1_amd64.deb",
                "http://10.77.0.2:8080/slurmlet/enroot+caps_4.1.2-1_amd64.deb", "http://10.77.0.2:8080/slurmlet/pyxis-0.24.0.tar.gz"),
                site.pinned(pinnedOne, "https://l:7818").stream().map(a -> a.url()).toList());
        assertEquals(site.pinned(List.of(), ""), site.pinned(held, "https://l:7818"), "a held file of another digest than the pin is not served");
    }
}
