package io.slurmlet.agent.containers;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.model.api.ContainerFile;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * The pinned files of jobs in containers, as the leader holds them: this release's own table (in
 * the agent, its digests filled in by a release) or the site's ({@code slurmlet.leader.containers.table}),
 * and the mirror every machine fetches them from. The leader puts the pinned ones, with their
 * URLs, into every Slurm machine's plan; a file without a digest is never sent.
 *
 * @param source  where the table came from, as a person reads it
 * @param entries every file of the table, pinned or not
 * @param mirror  the base URL the files are fetched from, ending in /; empty: none configured
 */
public record ArtifactTable(String source, List<Entry> entries, String mirror) {

    /** The artifacts each Slurm machine needs, whatever its architecture: enroot, its capabilities package, pyxis's source. */
    public static final List<String> NEEDED = List.of("enroot", "enroot+caps", "pyxis");
    /** What machines with NVIDIA GPUs need besides: nvidia-container-cli, which enroot's hook runs. */
    public static final List<String> NEEDED_WITH_GPUS = List.of("libnvidia-container1", "libnvidia-container-tools");

    static final String RELEASE_TABLE = "/containers/artifacts.json";
    private static final Logger LOG = Logger.getLogger(ArtifactTable.class);

    /**
     * One row of the table, as its JSON has it; {@code sha256} null where the release does not know it.
     * {@code bytes}, the file's size, is what a machine takes of it and no byte more, nor fewer: a
     * row that pins a digest pins it too (a site's table written before sizes is still read, its
     * files fetched up to {@link Fetcher#CEILING}, but containers are not turned on with it).
     */
    @RegisterForReflection
    public record Entry(
            @JsonProperty("name") String name,
            @JsonProperty("version") String version,
            @JsonProperty("arch") String arch,
            @JsonProperty("format") String format,
            @JsonProperty("file") String file,
            @JsonProperty("sha256") String sha256,
            @JsonProperty("bytes") Long bytes) {}

    @RegisterForReflection
    private record Json(
            @JsonProperty("release") String release,
            @JsonProperty("note") String note,
            @JsonProperty("artifacts") List<Entry> artifacts) {}

    public ArtifactTable {
        entries = List.copyOf(entries);
        mirror = mirror.isEmpty() || mirror.endsWith("/") ? mirror : mirror + "/";
    }

    /**
     * The table at {@code table} (this release's own where empty), with {@code mirror}.
     *
     * @throws IOException the table cannot be read, or a row of it is not a pinned file (named in the message)
     */
    public static ArtifactTable load(Optional<Path> table, Optional<String> mirror) throws IOException {
        Json json;
        String source;
        if (table.isPresent()) {
            source = table.get().toString();
            try (InputStream in = Files.newInputStream(table.get())) {
                json = read(in, source);
            }
        } else {
            source = "this release's table";
            try (InputStream in = ArtifactTable.class.getResourceAsStream(RELEASE_TABLE)) {
                if (in == null) {
                    throw new IOException("this agent lacks its artifact table " + RELEASE_TABLE);
                }
                json = read(in, source);
            }
        }
        ArtifactTable loaded = new ArtifactTable(
                source,
                json.artifacts() == null ? List.of() : json.artifacts(),
                mirror.map(String::strip).orElse(""));
        loaded.check(table.isEmpty());
        List<String> unsized = loaded.unsized(loaded.entries);
        if (!unsized.isEmpty()) {
            LOG.warnf(
                    ("the artifact table %s pins no size for %s (a table written before sizes): each is fetched up to %d bytes and "
                            + "refused after only by its digest, and containers cannot be turned on with it: give each row its \"bytes\", "
                            + "the file's size as stat -c %%s FILE prints it"),
                    source,
                    String.join(", ", unsized),
                    Fetcher.CEILING);
        }
        return loaded;
    }

    /** The files of {@code rows} that pin a digest and no size. */
    private List<String> unsized(List<Entry> rows) {
        return rows.stream()
                .filter(e -> e.sha256() != null && e.bytes() == null)
                .map(Entry::file)
                .toList();
    }

    private static Json read(InputStream in, String source) throws IOException {
        try {
            return SettingsJson.STRICT.readValue(in, Json.class);
        } catch (IOException e) {
            throw new IOException("the artifact table %s is not one: %s".formatted(source, e.getMessage()), e);
        }
    }

    /**
     * Every row, made an artifact at a dummy mirror: a row that could not be one, or whose size is
     * over what any machine fetches, is refused when the table is read; so is a row of this release's
     * own table ({@code release}) that pins a digest without a size.
     */
    private void check(boolean release) throws IOException {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            try {
                artifact(e, e.sha256() == null ? "0".repeat(64) : e.sha256(), "http://mirror.invalid/", e.bytes());
            } catch (IllegalArgumentException | NullPointerException bad) {
                throw new IOException("the artifact table %s, row %d: %s".formatted(source, i, bad.getMessage()));
            }
            if (e.bytes() != null && e.bytes() > Fetcher.CEILING) {
                throw new IOException(
                        ("the artifact table %s, row %d: bytes is %d, more than the %d any machine fetches of a file: "
                                        + "give the size of %s in bytes, as stat -c %%s prints it (a file this large is no package of enroot, pyxis "
                                        + "or nvidia-container-cli)")
                                .formatted(source, i, e.bytes(), Fetcher.CEILING, e.file()));
            }
            if (release && e.sha256() != null && e.bytes() == null) {
                throw new IOException(
                        ("the artifact table %s, row %d: %s pins a sha256 and no bytes: a release pins both "
                                        + "(give the row \"bytes\", the file's size as stat -c %%s prints it)")
                                .formatted(source, i, e.file()));
            }
        }
        if (!mirror.isEmpty()) {
            try {
                artifact(new Entry("mirror", "0", "all", "source", "x", null, null), "0".repeat(64), mirror, null);
            } catch (IllegalArgumentException bad) {
                throw new IOException(("slurmlet.leader.containers.mirror %s is not an http or https URL of a folder "
                                + "(http://mirror.example.org/slurmlet/)")
                        .formatted(Text.quote(mirror)));
            }
        }
    }

    private static Artifact artifact(Entry e, String sha256, String mirror, Long bytes) {
        return new Artifact(e.name(), e.version(), e.arch(), e.format(), e.file(), sha256, mirror + e.file(), bytes);
    }

    /**
     * What goes into a plan: each row's file from the leader where it holds it ({@code ctl slurm
     * containers import}), with the size it holds, else from the mirror where the row is pinned and a
     * mirror is set, with the size the row pins (none in a table written before sizes).
     *
     * @param held   the files the leader holds
     * @param leader the leader's agents' channel, as {@code https://HOST:PORT}: a file the leader holds is
     *               fetched at {@link #LEADER_FILES} there (an agent asks whichever leader it follows)
     */
    public List<Artifact> pinned(List<ContainerFile> held, String leader) {
        List<Artifact> pinned = new ArrayList<>();
        for (Entry e : entries) {
            Optional<ContainerFile> kept = heldFor(e, held);
            if (kept.isPresent()) {
                pinned.add(artifact(
                        e,
                        kept.get().sha256(),
                        leader + LEADER_FILES + kept.get().sha256() + "/",
                        kept.get().bytes()));
            } else if (e.sha256() != null && !mirror.isEmpty()) {
                pinned.add(artifact(e, e.sha256(), mirror, e.bytes()));
            }
        }
        return List.copyOf(pinned);
    }

    /** Where on the agents' channel the leader serves the files it holds: then the sha256, a slash and the file name. */
    public static final String LEADER_FILES = "/v1/agent/containers/files/";

    /** The file of row {@code e} the leader holds: the row's name, with the row's digest where it pins one. */
    private static Optional<ContainerFile> heldFor(Entry e, List<ContainerFile> held) {
        return held.stream()
                .filter(h -> h.file().equals(e.file())
                        && (e.sha256() == null || e.sha256().equals(h.sha256())))
                .findFirst();
    }

    /**
     * Why containers cannot be turned on with this table, with what the admin does about it; empty:
     * they can (a file of each {@link #NEEDED} name, and of each {@link #NEEDED_WITH_GPUS} name where
     * a Slurm machine has GPUs, that the leader holds or that is pinned, digest and size, with a
     * mirror to fetch it from).
     *
     * @param gpuMachines the Slurm machines whose facts show NVIDIA GPUs
     * @param held        the files the leader holds ({@code ctl slurm containers import})
     */
    public Optional<String> unusable(List<String> gpuMachines, List<ContainerFile> held) {
        List<String> why = new ArrayList<>();
        Predicate<String> heldName = n -> entries.stream()
                .anyMatch(e -> e.name().equals(n) && heldFor(e, held).isPresent());
        List<String> needed = new ArrayList<>(NEEDED);
        if (!gpuMachines.isEmpty()) {
            needed.addAll(NEEDED_WITH_GPUS);
        }
        if (mirror.isEmpty() && !needed.stream().allMatch(heldName)) {
            why.add(("no mirror is configured to fetch enroot and pyxis from, and the leader holds no %s: set "
                            + "slurmlet.leader.containers.mirror in the leader's /etc/slurmlet/agent.yaml to the URL that serves the table's "
                            + "files, or hand the files to the leader (ctl slurm containers import FILE...)")
                    .formatted(String.join(
                            ", ", needed.stream().filter(heldName.negate()).toList())));
        }
        List<String> unpinned = NEEDED.stream()
                .filter(heldName.negate())
                .filter(n -> entries.stream().noneMatch(e -> e.name().equals(n) && e.sha256() != null))
                .toList();
        if (!unpinned.isEmpty()) {
            why.add(
                    ("%s has no sha256 for %s, and nothing unverified is installed: give a table with the digests of the files "
                                    + "your mirror serves (slurmlet.leader.containers.table), or hand the files to the leader with the digests "
                                    + "their publisher lists (ctl slurm containers import --sums SHA256SUMS FILE...)")
                            .formatted(source, String.join(", ", unpinned)));
        }
        List<String> forGpus = gpuMachines.isEmpty()
                ? List.of()
                : NEEDED_WITH_GPUS.stream()
                        .filter(heldName.negate())
                        .filter(n -> entries.stream().noneMatch(e -> e.name().equals(n) && e.sha256() != null))
                        .toList();
        List<String> unsized = unsized(entries.stream()
                .filter(e -> needed.contains(e.name()) && !heldName.test(e.name()))
                .toList());
        if (!unsized.isEmpty()) {
            why.add(
                    ("%s pins no size for %s, and a machine takes no file of a size not pinned: give each row its \"bytes\", the "
                                    + "file's size as stat -c %%s FILE prints it (slurmlet.leader.containers.table)")
                            .formatted(source, String.join(", ", unsized)));
        }
        if (!forGpus.isEmpty()) {
            why.add(
                    ("%s %s NVIDIA GPUs, where containers need nvidia-container-cli, and %s has no sha256 for %s: add them, with "
                                    + "the digests of the files your mirror serves (slurmlet.leader.containers.table), or import them "
                                    + "(ctl slurm containers import --sums SHA256SUMS FILE...)")
                            .formatted(
                                    String.join(", ", gpuMachines),
                                    gpuMachines.size() == 1 ? "has" : "have",
                                    source,
                                    String.join(", ", forGpus)));
        }
        return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; and ", why));
    }
}
