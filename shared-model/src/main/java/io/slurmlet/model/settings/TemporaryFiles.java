package io.slurmlet.model.settings;

import java.util.regex.Pattern;

/**
 * How slurmlet names a file while it writes it (the target's name, {@value #MARK}, 12 hex digits),
 * before it renames it into place: one rule for the writer, for the store that removes what an
 * interrupted write left, and for the settings check that refuses a machine named like one.
 */
public final class TemporaryFiles {

    /** Between the target's name and the random part. */
    public static final String MARK = ".tmp-";
    /** Random bytes in a name, written as twice as many hex digits. */
    public static final int RANDOM_BYTES = 6;
    /** The end of a temporary file's name: the mark and the hex digits. */
    public static final String SUFFIX = Pattern.quote(MARK) + "[0-9a-f]{" + 2 * RANDOM_BYTES + "}";

    private static final Pattern ENDS_AS_ONE = Pattern.compile(".*" + SUFFIX);

    private TemporaryFiles() {}

    /** Whether {@code name} ends as a temporary file's name does. */
    public static boolean looksLikeOne(String name) {
        return ENDS_AS_ONE.matcher(name).matches();
    }
}
