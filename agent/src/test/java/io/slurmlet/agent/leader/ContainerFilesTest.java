package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.ContainerFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files a leader is handed, on the embedded store: kept in parts only with a checked digest. */
class ContainerFilesTest {

    @TempDir
    Path dir;

    static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new java.util.Random(seed).nextBytes(bytes);
        return bytes;
    }

    static String sha256(byte[] bytes) {
        return io.slurmlet.agent.reconcile.ManagedFiles.sha256(bytes);
    }

    byte[] read(ContainerFiles files, String sha256) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        files.read(sha256, out::write);
        return out.toByteArray();
    }

    @Test
    void aFileIsKeptInPartsUnderTheTablesPinAndAWrongCopyLaterNeverTouchesIt() throws Exception {
        byte[] deb = random(ContainerFiles.PART_BYTES * 2 + 10, 1);
        String pin = sha256(deb);
        Path tableFile = Files.writeString(dir.resolve("table.json"), """
                {"release": "site", "artifacts": [
                  {"name": "enroot", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot_4.1.2-1_amd64.deb", "sha256": "%s"}
                ]}""".formatted(pin));
        ArtifactTable table = ArtifactTable.load(Optional.of(tableFile), Optional.empty());
        Store store = FileStore.open(dir.resolve("state"));
        ContainerFiles files = ContainerFiles.open(store);

        byte[] wrong = random(deb.length, 2);
        ContainerFiles.Refused refused = assertThrows(
                ContainerFiles.Refused.class,
                () -> files.put(table, "enroot_4.1.2-1_amd64.deb", Optional.empty(), new ByteArrayInputStream(wrong)));
        assertEquals(
                "enroot_4.1.2-1_amd64.deb has sha256 " + sha256(wrong) + ", and the leader's table pins " + pin
                        + ": nothing kept (this is not the file the table pins; fetch it again from its publisher)",
                refused.getMessage());
        assertEquals(java.util.Map.of(), store.list("container-parts"), "the parts of a refused file are removed");
        assertEquals(List.of(), files.held());
        assertTrue(assertThrows(
                        ContainerFiles.Refused.class,
                        () -> files.put(
                                table,
                                "enroot_4.1.2-1_amd64.deb",
                                Optional.of("1".repeat(64)),
                                new ByteArrayInputStream(deb)))
                .getMessage()
                .contains("pins sha256 " + pin + " for enroot_4.1.2-1_amd64.deb, and the " + "digest given is "
                        + "1".repeat(64)));

        ContainerFile kept =
                files.put(table, "enroot_4.1.2-1_amd64.deb", Optional.empty(), new ByteArrayInputStream(deb));
        assertEquals(
                new ContainerFile("enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", pin, deb.length),
                kept);
        assertEquals(3, store.list("container-parts").size());
        assertEquals(List.of(kept), files.held());
        assertArrayEquals(deb, read(files, pin));

        // Held: a wrong copy handed over again is refused without its bytes replacing a part of the one kept.
        assertThrows(
                ContainerFiles.Refused.class,
                () -> files.put(table, "enroot_4.1.2-1_amd64.deb", Optional.empty(), new ByteArrayInputStream(wrong)));
        assertArrayEquals(deb, read(files, pin));
        assertEquals(
                kept,
                files.put(table, "enroot_4.1.2-1_amd64.deb", Optional.empty(), new ByteArrayInputStream(deb)),
                "again: the same");

        // A leader opened anew on the same state has it.
        assertEquals(
                List.of(kept),
                ContainerFiles.open(FileStore.open(dir.resolve("state"))).held());
    }

    @Test
    void withoutAPinTheAdminsDigestIsNeededAndAFileOverTheBoundIsRefused() throws Exception {
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        ContainerFiles files = ContainerFiles.open(FileStore.open(dir.resolve("state")));
        byte[] tarball = random(1000, 3);
        assertTrue(assertThrows(
                        ContainerFiles.Refused.class,
                        () -> files.put(
                                release, "pyxis-0.24.0.tar.gz", Optional.of("ABC"), new ByteArrayInputStream(tarball)))
                .getMessage()
                .startsWith("sha256 \"ABC\" for pyxis-0.24.0.tar.gz is not 64 lower-case hex"));
        assertEquals(
                "pyxis",
                files.put(
                                release,
                                "pyxis-0.24.0.tar.gz",
                                Optional.of(sha256(tarball)),
                                new ByteArrayInputStream(tarball))
                        .name());
        byte[] large = new byte[(int) ContainerFiles.MAX_BYTES + 1];
        ContainerFiles.Refused tooLarge = assertThrows(
                ContainerFiles.Refused.class,
                () -> files.put(
                        release,
                        "enroot_4.1.2-1_amd64.deb",
                        Optional.of(sha256(large)),
                        new ByteArrayInputStream(large)));
        assertTrue(
                tooLarge.getMessage()
                        .startsWith(
                                "enroot_4.1.2-1_amd64.deb is over 8 MiB, more than the leader takes: serve it from a mirror"),
                tooLarge.getMessage());
        assertEquals(1, files.held().size());

        // Another copy under the same name, with the digest its publisher lists now: it replaces the one held.
        byte[] newer = random(1200, 4);
        files.put(release, "pyxis-0.24.0.tar.gz", Optional.of(sha256(newer)), new ByteArrayInputStream(newer));
        assertEquals(
                List.of(sha256(newer)),
                files.held().stream().map(ContainerFile::sha256).toList());
        assertEquals(Optional.empty(), files.find(sha256(tarball)));
    }

    @Test
    void aFileThatLostAPartIsWrittenAgainByTheNextImport() throws Exception {
        ArtifactTable release = ArtifactTable.load(Optional.empty(), Optional.empty());
        Store store = FileStore.open(dir.resolve("state"));
        ContainerFiles files = ContainerFiles.open(store);
        byte[] deb = random(ContainerFiles.PART_BYTES + 5, 5);
        String sha = sha256(deb);
        files.put(release, "enroot_4.1.2-1_amd64.deb", Optional.of(sha), new ByteArrayInputStream(deb));
        var part = store.get("container-parts/" + sha.substring(0, 56) + "-1").orElseThrow();
        store.delete("container-parts/" + sha.substring(0, 56) + "-1", part.version());
        assertTrue(assertThrows(IOException.class, () -> read(files, sha))
                .getMessage()
                .contains("lacks part 1 of enroot_4.1.2-1_amd64.deb"));
        files.put(release, "enroot_4.1.2-1_amd64.deb", Optional.of(sha), new ByteArrayInputStream(deb));
        assertArrayEquals(deb, read(files, sha));
    }

    /**
     * Where the table pins a size, an import is read no further than the byte past it (the admin's
     * copy of the pinned file with more after it is cut there, its parts written so far removed), and
     * one with fewer bytes is refused by size; the file itself is kept.
     */
    @Test
    void anImportIsReadNoFurtherThanTheByteAfterThePinnedSizeAndAShortOneIsRefused() throws Exception {
        byte[] deb = random(ContainerFiles.PART_BYTES * 2 + 10, 6);
        String pin = sha256(deb);
        Path tableFile = Files.writeString(dir.resolve("table.json"), """
                {"release": "site", "artifacts": [
                  {"name": "enroot", "version": "4.1.2", "arch": "amd64", "format": "deb", "file": "enroot_4.1.2-1_amd64.deb", "sha256": "%s", "bytes": %d}
                ]}""".formatted(pin, deb.length));
        ArtifactTable table = ArtifactTable.load(Optional.of(tableFile), Optional.empty());
        Store store = FileStore.open(dir.resolve("state"));
        ContainerFiles files = ContainerFiles.open(store);

        long[] read = {0};
        java.io.InputStream endless = new java.io.InputStream() { // the pinned file, then bytes for ever
                    @Override
                    public int read() {
                        long at = read[0]++;
                        return at < deb.length ? deb[(int) at] & 0xff : 0;
                    }
                };
        ContainerFiles.Refused longer = assertThrows(
                ContainerFiles.Refused.class,
                () -> files.put(table, "enroot_4.1.2-1_amd64.deb", Optional.empty(), endless));
        assertEquals(
                ("enroot_4.1.2-1_amd64.deb is more than the %d bytes %s pins for it: nothing kept (this is not the file the table "
                                + "names; fetch it again from its publisher, or give the table its size, as stat -c %%s prints it)")
                        .formatted(deb.length, tableFile),
                longer.getMessage());
        assertEquals(deb.length + 1, read[0], "bytes read of the import");
        assertEquals(java.util.Map.of(), store.list("container-parts"), "the parts written before the cut are removed");

        ContainerFiles.Refused shorter = assertThrows(
                ContainerFiles.Refused.class,
                () -> files.put(
                        table,
                        "enroot_4.1.2-1_amd64.deb",
                        Optional.empty(),
                        new ByteArrayInputStream(java.util.Arrays.copyOf(deb, deb.length - 1))));
        assertEquals(
                ("enroot_4.1.2-1_amd64.deb is %d bytes, and %s pins %d: nothing kept (this is not the file the table names, or it "
                                + "was cut short; fetch it again from its publisher, or give the table its size, as stat -c %%s prints it)")
                        .formatted(deb.length - 1, tableFile, deb.length),
                shorter.getMessage());
        assertEquals(List.of(), files.held());

        ContainerFile kept =
                files.put(table, "enroot_4.1.2-1_amd64.deb", Optional.empty(), new ByteArrayInputStream(deb));
        assertEquals(deb.length, kept.bytes());
        assertArrayEquals(deb, read(files, pin));
    }
}
