package io.slurmlet.agent.containers;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.plan.Artifact;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

    /** One row of the table, as its JSON has it; {@code sha256} null where the release does not know it. */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Entry(@JsonProperty("name") String name, @JsonProperty("version") String version, @JsonProperty("arch") String arch,
                        @JsonProperty("format") String format, @JsonProperty("file") String file, @JsonProperty("sha256") String sha256) {
    }

    @io.quarkus.runtime.annotations.RegisterForReflection
    private record Json(@JsonProperty("release") String release, @JsonProperty("note") String note,
                        @JsonProperty("artifacts") List<Entry> artifacts) {
    }

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
        ArtifactTable loaded = new ArtifactTable(source, json.artifacts() == null ? List.of() : json.artifacts(),
                mirror.map(String::strip).orElse(""));
        loaded.check();
        return loaded;
    }

    private static Json read(InputStream in, String source) throws IOException {
        try {
            return SettingsJson.STRICT.readValue(in, Json.class);
        } catch (IOException e) {
            throw new IOException("the artifact table %s is not one: %s".formatted(source, e.getMessage()), e);
        }
    }

    /** Every row, made an artifact at a dummy mirror: a row that could not be one is refused when the table is read. */
    private void check() throws IOException {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            try {
                artifact(e, e.sha256() == null ? "0".repeat(64) : e.sha256(), "http://mirror.invalid/");
            } catch (IllegalArgumentException | NullPointerException bad) {
                throw new IOException("the artifact table %s, row %d: %s".formatted(source, i, bad.getMessage()));
            }
        }
        if (!mirror.isEmpty()) {
            try {
                artifact(new Entry("mirror", "0", "all", "source", "x", null), "0".repeat(64), mirror);
            } catch (IllegalArgumentException bad) {
                throw new IOException(("slurmlet.leader.containers.mirror %s is not an http or https URL of a folder "
                        + "(http://mirror.example.org/slurmlet/)").formatted(io.slurmlet.model.text.Text.quote(mirror)));
            }
        }
    }

    private static Artifact artifact(Entry e, String sha256, String mirror) {
        return new Artifact(e.name(), e.version(), e.arch(), e.format(), e.file(), sha256, mirror + e.file());
    }

    /** The pinned files, each with its URL at the mirror: what goes into a plan. */
    public List<Artifact> pinned() {
        if (mirror.isEmpty()) {
            return List.of();
        }
        return entries.stream().filter(e -> e.sha256() != null).map(e -> artifact(e, e.sha256(), mirror)).toList();
    }

    /**
     * Why containers cannot be turned on with this table, with what the admin does about it; empty:
     * they can (a mirror, and a pinned file of each {@link #NEEDED} name, and of each
     * {@link #NEEDED_WITH_GPUS} name where a Slurm machine has GPUs).
     *
     * @param gpuMachines the Slurm machines whose facts show NVIDIA GPUs
     */
    public Optional<String> unusable(List<String> gpuMachines) {
        List<String> why = new ArrayList<>();
        if (mirror.isEmpty()) {
            why.add("no mirror is configured to fetch enroot and pyxis from: set slurmlet.leader.containers.mirror in the leader's "
                    + "/etc/slurmlet/agent.yaml to the URL that serves the table's files");
        }
        List<String> unpinned = NEEDED.stream().filter(n -> entries.stream().noneMatch(e -> e.name().equals(n) && e.sha256() != null))
                .toList();
        if (!unpinned.isEmpty()) {
            why.add(("%s has no sha256 for %s, and nothing unverified is installed: give a table with the digests of the files "
                    + "your mirror serves (slurmlet.leader.containers.table)").formatted(source, String.join(", ", unpinned)));
        }
        List<String> forGpus = gpuMachines.isEmpty() ? List.of() : NEEDED_WITH_GPUS.stream()
                .filter(n -> entries.stream().noneMatch(e -> e.name().equals(n) && e.sha256() != null)).toList();
        if (!forGpus.isEmpty()) {
            why.add(("%s %s NVIDIA GPUs, where containers need nvidia-container-cli, and %s has no sha256 for %s: add them, with "
                    + "the digests of the files your mirror serves (slurmlet.leader.containers.table)").formatted(
                    String.join(", ", gpuMachines), gpuMachines.size() == 1 ? "has" : "have", source, String.join(", ", forGpus)));
        }
        return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; and ", why));
    }
}
