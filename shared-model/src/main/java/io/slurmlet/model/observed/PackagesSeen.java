package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the packages step saw: of the packages its plan names and of every other package a plan of
 * slurmlet's can name, those installed and those missing (a dry run of a role moved to this machine
 * then says what it would install).
 *
 * @param installed the packages looked at that are installed
 * @param missing   those that are not
 */
public record PackagesSeen(
        @JsonProperty("installed") List<String> installed,
        @JsonProperty("missing") List<String> missing) {

    /** Package names as dpkg and rpm take them. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9+._-]{0,127}");

    public PackagesSeen {
        installed = List.copyOf(installed == null ? List.of() : installed);
        missing = List.copyOf(missing == null ? List.of() : missing);
        if (installed.size() + missing.size() > 1000
                || Stream.concat(installed.stream(), missing.stream())
                        .anyMatch(n -> !NAME.matcher(n).matches())) {
            throw new IllegalArgumentException("packages: installed and missing are package names");
        }
    }
}
