package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.text.Text;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One file a machine fetches and installs, pinned: what it is, where it comes from, and the sha256
 * its bytes must have. Nothing whose digest differs is ever installed.
 *
 * @param name    what it is: {@code enroot}, {@code enroot+caps}, {@code pyxis}
 * @param version its upstream version, as {@code 4.1.2}
 * @param arch    the machine architecture it is for, as the package manager names it ({@code amd64},
 *                {@code arm64}, {@code x86_64}), or {@code all} (a source tarball)
 * @param format  {@code deb}, {@code rpm} or {@code source}
 * @param file    its file name, as the mirror serves it: no folder
 * @param sha256  the digest its bytes must have, 64 lower-case hex digits
 * @param url     where the machine fetches it: the mirror's base URL and the file name
 * @param bytes   its size, which the machine takes no byte more of and no byte less; null where the
 *                leader's table pins none (a table from before sizes, or a leader older than them):
 *                the machine then takes up to its own ceiling, and the digest decides
 */
public record Artifact(
        @JsonProperty("name") String name,
        @JsonProperty("version") String version,
        @JsonProperty("arch") String arch,
        @JsonProperty("format") String format,
        @JsonProperty("file") String file,
        @JsonProperty("sha256") String sha256,
        @JsonProperty("url") String url,

        @JsonProperty("bytes") @JsonInclude(JsonInclude.Include.NON_NULL)
        Long bytes) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9+._-]{0,63}");
    private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+~_-]{0,63}");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9+._~-]{0,199}");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    /** An http(s) URL of printable ASCII without spaces, quotes or backslashes. */
    private static final Pattern URL = Pattern.compile("https?://[A-Za-z0-9._~:/?#\\[\\]@!$&()*+,;=%-]{1,2000}");

    @JsonCreator
    public Artifact {
        Objects.requireNonNull(name, "an artifact has a name");
        check(name, "name", name, NAME);
        check(name, "version", version, VERSION);
        check(name, "arch", arch, NAME);
        if (!Set.of("deb", "rpm", "source").contains(format)) {
            throw new IllegalArgumentException(
                    "artifact %s: format is deb, rpm or source, not %s".formatted(name, format));
        }
        check(name, "file", file, FILE);
        check(name, "sha256", sha256, SHA256);
        check(name, "url", url, URL);
        if (!url.endsWith("/" + file)) {
            throw new IllegalArgumentException("artifact %s: its url ends in its file name %s".formatted(name, file));
        }
        if (bytes != null && bytes < 1) {
            throw new IllegalArgumentException(
                    "artifact %s: bytes is %d, not a file's size: give the size of %s in bytes, as stat -c %%s prints it"
                            .formatted(name, bytes, file));
        }
    }

    /** One whose size is not pinned (a table row without one): the machine's ceiling bounds it. */
    public Artifact(String name, String version, String arch, String format, String file, String sha256, String url) {
        this(name, version, arch, format, file, sha256, url, null);
    }

    private static void check(String name, String key, String value, Pattern form) {
        if (value == null || !form.matcher(value).matches()) {
            throw new IllegalArgumentException("artifact %s: %s is not one (%s)"
                    .formatted(name, key, value == null ? "missing" : Text.quote(value)));
        }
    }

    /** The first 12 hex digits of its digest, as a person reads it in a line. */
    public String shortDigest() {
        return sha256.substring(0, 12);
    }
}
