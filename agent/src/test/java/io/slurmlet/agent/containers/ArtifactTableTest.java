package io.slurmlet.agent.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArtifactTableTest {

    @TempDir
    Path dir;

    static final String SITE = """
            {"release": "site", "artifacts": [
              {"name": "enroot", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot_4.1.2-1_amd64.deb", "sha256": "%s", "bytes": 98132},
              {"name": "enroot+caps", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot+caps_4.1.2-1_amd64.deb", "sha256": "%s", "bytes": 4804},
              {"name": "pyxis", "version": "0.24.0", "arch": "all", "format": "source", "file": "pyxis-0.24.0.tar.gz", "sha256": "%s", "bytes": 48133},
              {"name": "enroot", "version": "4.1.2", "arch": "arm64", "format": "deb", "file": "enroot_4.1.2-1_arm64.deb", "sha256": null}
            ]}
            """.formatted("a".repeat(64), "b".repeat(64), "c".repeat(64));

    /** The same rows as a table written before sizes has them. */
    static final String UNSIZED = SITE.replaceAll(", \"bytes\": [0-9]+", "");

    @Test
    void thisReleasesTableKnowsNoDigestSoContainersCannotBeTurnedOnAndItSaysWhatToGive() throws IOException {
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        assertEquals(List.of(), release.pinned(List.of(), ""));
        String why = release.unusable(List.of(), List.of()).orElseThrow();
        assertTrue(
                why.contains(
                        "no mirror is configured to fetch enroot and pyxis from, and the leader holds no enroot, enroot+caps, pyxis: set "
                                + "slurmlet.leader.containers.mirror"),
                why);
        assertTrue(
                why.contains(
                        "this release's table has no sha256 for enroot, enroot+caps, pyxis, and nothing unverified is installed"),
                why);
    }

    @Test
    void aSitesTableWithAMirrorGivesEveryPinnedFileItsUrlAndLeavesOutOneWithoutADigest() throws IOException {
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        ArtifactTable site = ArtifactTable.load(Optional.of(table), Optional.of("http://10.77.0.2:8080/slurmlet"));
        assertEquals(Optional.empty(), site.unusable(List.of(), List.of()));
        // With GPU machines among the Slurm machines, nvidia-container-cli's packages must be pinned too.
        String gpus = site.unusable(List.of("gpu1", "gpu2"), List.of()).orElseThrow();
        assertTrue(
                gpus.equals("gpu1, gpu2 have NVIDIA GPUs, where containers need nvidia-container-cli, and " + table
                        + " has no sha256 for libnvidia-container1, libnvidia-container-tools: add them, with the digests of the "
                        + "files your mirror serves (slurmlet.leader.containers.table), or import them (ctl slurm containers import --sums "
                        + "SHA256SUMS FILE...)"),
                gpus);
        assertEquals(
                List.of(
                        "http://10.77.0.2:8080/slurmlet/enroot_4.1.2-1_amd64.deb",
                        "http://10.77.0.2:8080/slurmlet/enroot+caps_4.1.2-1_amd64.deb",
                        "http://10.77.0.2:8080/slurmlet/pyxis-0.24.0.tar.gz"),
                site.pinned(List.of(), "").stream().map(a -> a.url()).toList());
    }

    @Test
    void aRowThatCouldNameAnotherFolderOrIsNoDigestIsRefusedWhenTheTableIsRead() throws IOException {
        for (String[] bad : List.of(
                new String[] {"pyxis-0.24.0.tar.gz", "../../etc/shadow"},
                new String[] {"c".repeat(64), "C".repeat(64)},
                new String[] {"\"source\"", "\"zip\""})) {
            Path table = Files.writeString(dir.resolve("bad.json"), SITE.replace(bad[0], bad[1]));
            IOException e = assertThrows(
                    IOException.class, () -> ArtifactTable.load(Optional.of(table), Optional.of("http://m/")));
            assertTrue(
                    e.getMessage().startsWith("the artifact table " + table + ", row 2: artifact pyxis"),
                    e.getMessage());
        }
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        IOException mirror =
                assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(table), Optional.of("ftp://m/")));
        assertTrue(
                mirror.getMessage()
                        .startsWith("slurmlet.leader.containers.mirror \"ftp://m/\" is not an http or https URL"),
                mirror.getMessage());
        Path unknownKey = Files.writeString(dir.resolve("key.json"), SITE.replace("\"release\"", "\"relase\""));
        assertTrue(assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(unknownKey), Optional.empty()))
                .getMessage()
                .contains("relase"));
    }

    @Test
    void aFileTheLeaderHoldsIsFetchedFromTheLeaderAndMakesContainersUsableWithoutAMirror() throws IOException {
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        String enroot = "1".repeat(64);
        List<io.slurmlet.model.api.ContainerFile> held = List.of(
                new io.slurmlet.model.api.ContainerFile(
                        "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", enroot, 98132),
                new io.slurmlet.model.api.ContainerFile(
                        "enroot+caps", "4.1.2", "amd64", "deb", "enroot+caps_4.1.2-1_amd64.deb", "2".repeat(64), 4804));
        String why = release.unusable(List.of(), held).orElseThrow();
        assertTrue(
                why.startsWith(
                        "no mirror is configured to fetch enroot and pyxis from, and the leader holds no pyxis: "),
                why);
        assertTrue(why.contains("this release's table has no sha256 for pyxis, and"), why);
        List<io.slurmlet.model.api.ContainerFile> all = new java.util.ArrayList<>(held);
        all.add(new io.slurmlet.model.api.ContainerFile(
                "pyxis", "0.24.0", "all", "source", "pyxis-0.24.0.tar.gz", "3".repeat(64), 48133));
        assertEquals(Optional.empty(), release.unusable(List.of(), all));
        assertTrue(release.unusable(List.of("gpu1"), all)
                .orElseThrow()
                .contains("the leader holds no libnvidia-container1, libnvidia-container-tools"));
        assertEquals(
                List.of("https://10.77.0.1:7818/v1/agent/containers/files/" + enroot + "/enroot_4.1.2-1_amd64.deb"),
                release.pinned(all, "https://10.77.0.1:7818").stream()
                        .filter(a -> a.name().equals("enroot"))
                        .map(a -> a.url())
                        .toList());

        // A site's table: a held file is the leader's to serve only with the digest the table pins; the rest come from
        // the mirror.
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        ArtifactTable site = ArtifactTable.load(Optional.of(table), Optional.of("http://10.77.0.2:8080/slurmlet"));
        List<io.slurmlet.model.api.ContainerFile> pinnedOne = List.of(new io.slurmlet.model.api.ContainerFile(
                "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", "a".repeat(64), 98132));
        assertEquals(
                List.of(
                        "https://l:7818/v1/agent/containers/files/" + "a".repeat(64) + "/enroot_4.1.2-1_amd64.deb",
                        "http://10.77.0.2:8080/slurmlet/enroot+caps_4.1.2-1_amd64.deb",
                        "http://10.77.0.2:8080/slurmlet/pyxis-0.24.0.tar.gz"),
                site.pinned(pinnedOne, "https://l:7818").stream()
                        .map(a -> a.url())
                        .toList());
        assertEquals(
                site.pinned(List.of(), ""),
                site.pinned(held, "https://l:7818"),
                "a held file of another digest than the pin is not served");
    }

    @Test
    void eachPinnedFileCarriesTheSizeItsRowPinsOrTheOneTheLeaderHolds() throws IOException {
        Path table = Files.writeString(dir.resolve("table.json"), SITE);
        ArtifactTable site = ArtifactTable.load(Optional.of(table), Optional.of("http://10.77.0.2:8080/slurmlet"));
        assertEquals(
                List.of(98132L, 4804L, 48133L),
                site.pinned(List.of(), "").stream().map(a -> a.bytes()).toList());
        List<io.slurmlet.model.api.ContainerFile> held = List.of(new io.slurmlet.model.api.ContainerFile(
                "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", "a".repeat(64), 98132));
        assertEquals(
                List.of(98132L, 4804L, 48133L),
                site.pinned(held, "https://l:7818").stream().map(a -> a.bytes()).toList());
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        assertEquals(
                List.of(77L),
                release
                        .pinned(
                                List.of(new io.slurmlet.model.api.ContainerFile(
                                        "pyxis", "0.24.0", "all", "source", "pyxis-0.24.0.tar.gz", "3".repeat(64), 77)),
                                "https://l:7818")
                        .stream()
                        .map(a -> a.bytes())
                        .toList(),
                "a file the leader holds: its own size");
        for (ArtifactTable.Entry e : release.entries()) {
            assertTrue(
                    e.sha256() == null || e.bytes() != null, "this release's table pins a size with each digest: " + e);
        }
    }

    /** A size that is no file's, or more than any machine takes, is refused when the table is read: the row, key, value and fix. */
    @Test
    void aRowsSizeThatIsNoFilesIsRefusedWhenTheTableIsRead() throws IOException {
        Path zero = Files.writeString(dir.resolve("zero.json"), SITE.replace("\"bytes\": 48133", "\"bytes\": 0"));
        assertEquals(
                "the artifact table " + zero
                        + ", row 2: artifact pyxis: bytes is 0, not a file's size: give the size of "
                        + "pyxis-0.24.0.tar.gz in bytes, as stat -c %s prints it",
                assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(zero), Optional.of("http://m/")))
                        .getMessage());
        Path huge =
                Files.writeString(dir.resolve("huge.json"), SITE.replace("\"bytes\": 48133", "\"bytes\": 1073741825"));
        assertEquals(
                "the artifact table " + huge
                        + ", row 2: bytes is 1073741825, more than the 1073741824 any machine fetches of a "
                        + "file: give the size of pyxis-0.24.0.tar.gz in bytes, as stat -c %s prints it (a file this large is no package of "
                        + "enroot, pyxis or nvidia-container-cli)",
                assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(huge), Optional.of("http://m/")))
                        .getMessage());
        Path text =
                Files.writeString(dir.resolve("text.json"), SITE.replace("\"bytes\": 48133", "\"bytes\": \"48133\""));
        assertTrue(
                assertThrows(IOException.class, () -> ArtifactTable.load(Optional.of(text), Optional.of("http://m/")))
                        .getMessage()
                        .startsWith("the artifact table " + text + " is not one: "));
    }

    /**
     * A site's table written before sizes is still read (a leader upgraded with it starts, and
     * machines go on fetching its files, up to the ceiling and checked by digest), but containers are
     * not turned on with it until each needed row has its size.
     */
    @Test
    void aTableWrittenBeforeSizesIsReadButContainersAreNotTurnedOnWithIt() throws IOException {
        Path table = Files.writeString(dir.resolve("table.json"), UNSIZED);
        ArtifactTable old = ArtifactTable.load(Optional.of(table), Optional.of("http://10.77.0.2:8080/slurmlet"));
        assertEquals(3, old.pinned(List.of(), "").size());
        assertTrue(old.pinned(List.of(), "").stream().allMatch(a -> a.bytes() == null));
        assertEquals(
                Optional.of(table
                        + " pins no size for enroot_4.1.2-1_amd64.deb, enroot+caps_4.1.2-1_amd64.deb, pyxis-0.24.0.tar.gz, "
                        + "and a machine takes no file of a size not pinned: give each row its \"bytes\", the file's size as stat -c %s FILE "
                        + "prints it (slurmlet.leader.containers.table)"),
                old.unusable(List.of(), List.of()));
        // Those the leader holds carry their own size: the rest still need one.
        List<io.slurmlet.model.api.ContainerFile> held = List.of(
                new io.slurmlet.model.api.ContainerFile(
                        "enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", "a".repeat(64), 98132),
                new io.slurmlet.model.api.ContainerFile(
                        "enroot+caps", "4.1.2", "amd64", "deb", "enroot+caps_4.1.2-1_amd64.deb", "b".repeat(64), 4804));
        assertTrue(
                old.unusable(List.of(), held)
                        .orElseThrow()
                        .startsWith(table + " pins no size for pyxis-0.24.0.tar.gz, and"),
                old.unusable(List.of(), held).orElseThrow());
    }
}
