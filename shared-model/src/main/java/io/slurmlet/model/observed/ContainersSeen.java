package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the containers step saw on a Slurm machine, containers on or off: what a dry run needs to
 * say what the step would install, build or write here, its architecture and package format among
 * it. Never reported where the machine has no Slurm role: the step does not look there.
 *
 * @param arch        the machine's architecture, as its package manager names it (amd64, x86_64)
 * @param format      its package format: deb or rpm
 * @param packages    each of enroot's and nvidia-container-cli's packages installed, with its version
 * @param slurm       the version of the machine's Slurm commands; "" where none
 * @param headers     the version of the Slurm headers pyxis is built against; "" where none
 * @param pyxis       what the stamp beside the plugin says it was built from and for; null: no stamp
 * @param pyxisSha256 the sha256 of the plugin installed; "" where none
 * @param files       each file the step keeps, by path: its sha256, mode and owner ({@code HEX rw-r--r--
 *                    root:root}), "" where absent
 * @param folders     the folders the step keeps that are not root's 0755 folders
 */
public record ContainersSeen(
        @JsonProperty("arch") String arch,
        @JsonProperty("format") String format,
        @JsonProperty("packages") Map<String, String> packages,
        @JsonProperty("slurm") String slurm,
        @JsonProperty("headers") String headers,

        @JsonProperty("pyxis") @JsonInclude(JsonInclude.Include.NON_NULL)
        Pyxis pyxis,

        @JsonProperty("pyxis_sha256") String pyxisSha256,
        @JsonProperty("files") Map<String, String> files,
        @JsonProperty("folders") List<String> folders) {

    /** One word of what a machine's tools print: a version, an architecture, a digest. */
    static final Pattern WORD = Pattern.compile("[A-Za-z0-9][A-Za-z0-9+._:~-]{0,127}|");
    /** A kept file or folder: an absolute path of plain names (neither . nor ..). */
    static final Pattern PATH = Pattern.compile("(/(?!\\.\\.?(/|$))[A-Za-z0-9._+-]{1,64}){1,12}");
    /** A kept file as seen: {@code HEX mode owner:group}, or "" where absent. */
    static final Pattern FILE =
            Pattern.compile("([0-9a-f]{64} [rwxsStT-]{9} [A-Za-z0-9_.-]{1,32}:[A-Za-z0-9_.-]{1,32})?");

    /**
     * What the stamp says pyxis was built from and for.
     *
     * @param version      pyxis's version
     * @param slurm        the Slurm version whose headers it was built against
     * @param sourceSha256 the source tarball's digest
     * @param sha256       the plugin's digest when it was installed
     */
    public record Pyxis(
            @JsonProperty("version") String version,
            @JsonProperty("slurm") String slurm,
            @JsonProperty("source_sha256") String sourceSha256,
            @JsonProperty("sha256") String sha256) {
        public Pyxis {
            if (Stream.of(version, slurm, sourceSha256, sha256)
                    .anyMatch(w -> w == null || !WORD.matcher(w).matches())) {
                throw new IllegalArgumentException("containers: pyxis's stamp is four words");
            }
        }
    }

    public ContainersSeen {
        packages = new TreeMap<>(packages == null ? Map.of() : packages);
        files = new TreeMap<>(files == null ? Map.of() : files);
        folders = List.copyOf(folders == null ? List.of() : folders);
        pyxisSha256 = pyxisSha256 == null ? "" : pyxisSha256;
        if (Stream.of(arch, format, slurm, headers, pyxisSha256)
                        .anyMatch(w -> w == null || !WORD.matcher(w).matches())
                || packages.size() > 16
                || packages.entrySet().stream()
                        .anyMatch(e -> !WORD.matcher(e.getKey()).matches()
                                || !WORD.matcher(e.getValue()).matches())
                || files.size() > 32
                || files.entrySet().stream()
                        .anyMatch(e -> !PATH.matcher(e.getKey()).matches()
                                || !FILE.matcher(e.getValue()).matches())
                || folders.size() > 32
                || folders.stream().anyMatch(f -> !PATH.matcher(f).matches())) {
            throw new IllegalArgumentException(
                    "containers: versions, digests and architecture are words; files and folders absolute paths");
        }
        packages = Collections.unmodifiableMap(packages);
        files = Collections.unmodifiableMap(files);
    }
}
