package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A file of the leader's artifact table that an admin handed to the leader ({@code ctl slurm
 * containers import}): the leader keeps it in its store and every machine fetches it from the
 * leader it follows, its sha256 checked there again before anything is installed.
 *
 * @param name    what it is: {@code enroot}, {@code enroot+caps}, {@code pyxis}, ...
 * @param version its upstream version
 * @param arch    the architecture it is for, or {@code all}
 * @param format  {@code deb}, {@code rpm} or {@code source}
 * @param file    its file name, as the table names it
 * @param sha256  the digest its bytes have, checked against the table's pin (or the admin's) when imported
 * @param bytes   its size
 */
public record ContainerFile(
        @JsonProperty("name") String name,
        @JsonProperty("version") String version,
        @JsonProperty("arch") String arch,
        @JsonProperty("format") String format,
        @JsonProperty("file") String file,
        @JsonProperty("sha256") String sha256,
        @JsonProperty("bytes") long bytes) {}
