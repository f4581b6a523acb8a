package io.slurmlet.agent.leader;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.ContainerFile;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The files of the artifact table an admin handed to the leader ({@code ctl slurm containers
 * import}), for sites whose machines reach no mirror: kept in the leader's store (so a leader
 * that takes over on etcd has them too, and {@code slurmlet-agent store-move} carries them there
 * with the rest of the state), each in parts of {@link #PART_BYTES} under
 * {@code container-parts/} and a manifest under {@code container-files/}, written last. A file is
 * kept only once its bytes have the digest the table pins, or, where the release's table pins
 * none, the digest the admin gives (the one its publisher lists): nothing unverified is kept, and
 * every machine checks the digest again before it installs anything.
 */
public final class ContainerFiles {

    /** The manifests: {@code container-files/ID}, ID the first 56 hex digits of the file's sha256. */
    public static final String FOLDER = "container-files";

    static final String PARTS = "container-parts";
    /** A part's size: under etcd's default request limit (1.5 MiB) with room for the transaction. */
    public static final int PART_BYTES = 512 * 1024;
    /**
     * The largest file taken: the admin API's own bound on a body (quarkus.http.limits.max-body-size),
     * over any package or source tarball of the table (NVIDIA's libnvidia-container1 is about 1 MB).
     */
    public static final long MAX_BYTES = 8L << 20;

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final Logger LOG = Logger.getLogger(ContainerFiles.class);

    /** An import refused: the file, what is wrong and what to do; nothing was kept. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** What the store keeps of a file besides its parts. */
    @RegisterForReflection
    record Manifest(
            @JsonProperty("file") ContainerFile file,
            @JsonProperty("part_bytes") int partBytes) {
        int parts() {
            return (int) ((file.bytes() + partBytes - 1) / partBytes);
        }
    }

    private final Store store;

    private ContainerFiles(Store store) {
        this.store = store;
    }

    public static ContainerFiles open(Store store) {
        return new ContainerFiles(store);
    }

    /** Whether {@code key} of the store is a file's manifest: the plans name the files the leader holds. */
    public static boolean holds(String key) {
        return key.startsWith(FOLDER + "/");
    }

    /** Every file the leader holds, by file name; a manifest it cannot read is left out with a warning. */
    public List<ContainerFile> held() throws IOException {
        List<ContainerFile> files = new ArrayList<>();
        for (var entry : store.list(FOLDER).entrySet()) {
            try {
                files.add(SettingsJson.STRICT
                        .readValue(entry.getValue().value(), Manifest.class)
                        .file());
            } catch (IOException e) {
                LOG.warnf(
                        "%s is not a file's manifest (%s): left out; import the file again",
                        store.where(entry.getKey()), e.getMessage());
            }
        }
        files.sort(Comparator.comparing(ContainerFile::file));
        return List.copyOf(files);
    }

    /**
     * Keeps the bytes of {@code in} as the table's file {@code file}.
     *
     * @param admins the digest the admin gives for it; needed where the table pins none, and must be the table's where it does
     * @throws Refused the file is not the table's, no digest is known for it, its bytes have another, it is too large, or
     *                 its size is not the one the table pins (read no further than a byte past it)
     */
    public synchronized ContainerFile put(ArtifactTable table, String file, Optional<String> admins, InputStream in)
            throws Refused, IOException {
        ArtifactTable.Entry row = table.entries().stream()
                .filter(e -> e.file().equals(file))
                .findFirst()
                .orElseThrow(() -> new Refused("%s is not a file of %s: its files are %s"
                        .formatted(
                                Text.quote(file),
                                table.source(),
                                String.join(
                                        ", ",
                                        table.entries().stream()
                                                .map(ArtifactTable.Entry::file)
                                                .toList()))));
        if (admins.isPresent() && !SHA256.matcher(admins.get()).matches()) {
            throw new Refused("sha256 %s for %s is not 64 lower-case hex digits (as sha256sum prints them)"
                    .formatted(Text.quote(admins.get()), file));
        }
        if (row.sha256() != null && admins.isPresent() && !admins.get().equals(row.sha256())) {
            throw new Refused(
                    ("%s pins sha256 %s for %s, and the digest given is %s: nothing kept (the table's pin is what every "
                                    + "machine checks; give the file it pins)")
                            .formatted(table.source(), row.sha256(), file, admins.get()));
        }
        String expected = row.sha256() != null
                ? row.sha256()
                : admins.orElseThrow(() -> new Refused(
                        ("%s pins no sha256 for %s, and nothing unverified is installed: give the digest its publisher lists "
                                        + "(ctl slurm containers import --sums SHA256SUMS %s), or a table with it (slurmlet.leader.containers.table)")
                                .formatted(table.source(), file, file)));
        if (row.bytes() != null && row.bytes() > MAX_BYTES) {
            throw new Refused(("%s pins %d bytes for %s, over the %d MiB the leader takes: serve it from a mirror "
                            + "(slurmlet.leader.containers.mirror); nothing kept")
                    .formatted(table.source(), row.bytes(), file, MAX_BYTES >> 20));
        }
        // Read no further than a byte past the size the row pins, or past the most the leader takes.
        long most = row.bytes() != null ? row.bytes() : MAX_BYTES;
        MessageDigest digest = sha256();
        String id = expected.substring(0, 56);
        // Held already, whole: its bytes are only checked, so that a wrong copy never touches the parts kept.
        boolean held = whole(expected);
        long total = 0;
        int parts = 0;
        try {
            byte[] part = new byte[PART_BYTES];
            for (int filled; (filled = in.readNBytes(part, 0, (int) Math.min(PART_BYTES, most + 1 - total))) > 0; ) {
                total += filled;
                if (total > most && row.bytes() != null) {
                    throw new Refused(
                            ("%s is more than the %d bytes %s pins for it: nothing kept (this is not the file the table "
                                            + "names; fetch it again from its publisher, or give the table its size, as stat -c %%s prints it)")
                                    .formatted(file, most, table.source()));
                }
                if (total > most) {
                    throw new Refused(
                            "%s is over %d MiB, more than the leader takes: serve it from a mirror (slurmlet.leader.containers.mirror); nothing kept"
                                    .formatted(file, MAX_BYTES >> 20));
                }
                digest.update(part, 0, filled);
                if (!held) {
                    write(partKey(id, parts++), Arrays.copyOf(part, filled));
                }
            }
            if (row.bytes() != null && total < most) {
                throw new Refused(
                        ("%s is %d bytes, and %s pins %d: nothing kept (this is not the file the table names, or it was "
                                        + "cut short; fetch it again from its publisher, or give the table its size, as stat -c %%s prints it)")
                                .formatted(file, total, table.source(), most));
            }
            String got = HexFormat.of().formatHex(digest.digest());
            if (!got.equals(expected)) {
                throw new Refused(
                        ("%s has sha256 %s, and %s: nothing kept (this is not the file %s; fetch it again from its "
                                        + "publisher)")
                                .formatted(
                                        file,
                                        got,
                                        row.sha256() != null
                                                ? "the leader's table pins " + expected
                                                : "the digest given is " + expected,
                                        row.sha256() != null ? "the table pins" : "the digest names"));
            }
        } catch (Refused | IOException | RuntimeException e) {
            for (int i = 0; i < parts; i++) {
                delete(partKey(id, i));
            }
            throw e;
        }
        ContainerFile kept =
                new ContainerFile(row.name(), row.version(), row.arch(), row.format(), row.file(), expected, total);
        if (held) {
            return kept;
        }
        write(FOLDER + "/" + id, SettingsJson.STRICT.writeValueAsBytes(new Manifest(kept, PART_BYTES)));
        replaced(kept);
        LOG.infof(
                "keeping %s %s (%s, %d bytes, sha256 %s) for every machine to fetch from the leader",
                row.name(), row.version(), row.file(), total, expected);
        return kept;
    }

    /** The file with digest {@code sha256}, if the leader holds it. */
    public Optional<ContainerFile> find(String sha256) throws IOException {
        if (!SHA256.matcher(sha256).matches()) {
            return Optional.empty();
        }
        return manifest(sha256).map(Manifest::file);
    }

    /** Hands the bytes of the file with digest {@code sha256} to {@code out}, a part at a time. */
    public void read(String sha256, PartSink out) throws IOException {
        Held held = open(sha256).orElseThrow(() -> new IOException("the leader holds no file with sha256 " + sha256));
        for (int i = 0; i < held.parts(); i++) {
            out.accept(part(held, i));
        }
    }

    /** A file the leader holds, to be read a part at a time ({@link #part}): what it is, and how many parts it has. */
    public record Held(ContainerFile file, int parts) {}

    /** The file with digest {@code sha256}, to be read a part at a time; empty if the leader holds none. */
    public Optional<Held> open(String sha256) throws IOException {
        if (!SHA256.matcher(sha256).matches()) {
            return Optional.empty();
        }
        return manifest(sha256).map(m -> new Held(m.file(), m.parts()));
    }

    /** Part {@code index} of {@code held}, from 0: {@link #PART_BYTES} each but the last. */
    public byte[] part(Held held, int index) throws IOException {
        String key = partKey(held.file().sha256().substring(0, 56), index);
        var part = store.get(key);
        if (part.isEmpty()) {
            throw new IOException("%s lacks part %d of %s: import the file again (ctl slurm containers import)"
                    .formatted(store.where(key), index, held.file().file()));
        }
        return part.get().value();
    }

    /** Takes a file's parts in order. */
    @FunctionalInterface
    public interface PartSink {
        void accept(byte[] part) throws IOException;
    }

    private Optional<Manifest> manifest(String sha256) throws IOException {
        var doc = store.get(FOLDER + "/" + sha256.substring(0, 56));
        if (doc.isEmpty()) {
            return Optional.empty();
        }
        Manifest m;
        try {
            m = SettingsJson.STRICT.readValue(doc.get().value(), Manifest.class);
        } catch (IOException e) {
            LOG.warnf(
                    "%s is not a file's manifest (%s): import the file again",
                    store.where(FOLDER + "/" + sha256.substring(0, 56)), e.getMessage());
            return Optional.empty();
        }
        return m.file().sha256().equals(sha256) ? Optional.of(m) : Optional.empty();
    }

    /** Whether the file with digest {@code sha256} is held with every part: else an import writes it again. */
    private boolean whole(String sha256) throws IOException {
        Optional<Manifest> m = manifest(sha256);
        if (m.isEmpty()) {
            return false;
        }
        for (int i = 0; i < m.get().parts(); i++) {
            if (store.get(partKey(sha256.substring(0, 56), i)).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Forgets every other file held under {@code kept}'s name (an earlier import of another digest,
     * where the table pins none): the plans name the newest one.
     */
    private void replaced(ContainerFile kept) throws IOException {
        for (var entry : store.list(FOLDER).entrySet()) {
            Manifest m;
            try {
                m = SettingsJson.STRICT.readValue(entry.getValue().value(), Manifest.class);
            } catch (IOException e) {
                continue;
            }
            if (m.file().file().equals(kept.file()) && !m.file().sha256().equals(kept.sha256())) {
                String id = m.file().sha256().substring(0, 56);
                store.delete(entry.getKey(), entry.getValue().version());
                for (int i = 0; i < m.parts(); i++) {
                    delete(partKey(id, i));
                }
                LOG.infof(
                        "%s with sha256 %s is replaced by the one imported now (sha256 %s)",
                        kept.file(), m.file().sha256(), kept.sha256());
            }
        }
    }

    private static String partKey(String id, int part) {
        return PARTS + "/" + id + "-" + part;
    }

    /** {@code value} under {@code key}, whatever it held (this leader imports one file at a time). */
    private void write(String key, byte[] value) throws IOException {
        for (int attempt = 0; ; attempt++) {
            long version = store.get(key).map(Store.Versioned::version).orElse(Store.ABSENT);
            if (store.put(key, value, version).isPresent()) {
                return;
            }
            if (attempt == 3) {
                throw new IOException("%s kept changing while the leader wrote it: import the file again"
                        .formatted(store.where(key)));
            }
        }
    }

    private void delete(String key) {
        try {
            Optional<Store.Versioned> kept = store.get(key);
            if (kept.isPresent()) {
                store.delete(key, kept.get().version());
            }
        } catch (IOException e) {
            LOG.warnf(
                    "could not remove %s of a refused import (%s): it is never served, and the next import of that file replaces it",
                    store.where(key), e.getMessage());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
