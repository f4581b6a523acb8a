package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the slurm step saw of Slurm's files and daemons on a machine. A file is named by its sha256
 * (a secret's by nothing at all); its text is given only where it is short and no secret (the
 * cluster's name and id in slurmctld's state), so a preview can say what a rename writes there.
 *
 * @param files     each of the plan's files that exists
 * @param running   the plan's daemons that run
 * @param enabled   the plan's daemons that are enabled
 * @param owed      the restarts and reconfigure still owed, as the owed file's lines
 * @param owedStale whether the owed file says more than that (it is then written again)
 * @param jwks      what the machine holds of Slurm's own authentication keys; every agent that can
 *                  write slurm.jwks sends it, under munge too (absent: an agent too old for
 *                  auth=slurm, which the leader refuses to switch while one runs Slurm)
 */
public record SlurmSeen(
        @JsonProperty("files") List<File> files,
        @JsonProperty("running") List<String> running,
        @JsonProperty("enabled") List<String> enabled,
        @JsonProperty("owed") List<String> owed,
        @JsonProperty("owed_stale") boolean owedStale,
        @JsonProperty("jwks") JwksSeen jwks) {

    /** The longest text a file's report carries. */
    public static final int TEXT_MAX = 128;

    private static final Pattern UNIT = Pattern.compile("[a-z][a-z0-9@._-]{0,63}");
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._+-]+)+");

    public SlurmSeen {
        files = List.copyOf(files == null ? List.of() : files);
        running = List.copyOf(running == null ? List.of() : running);
        enabled = List.copyOf(enabled == null ? List.of() : enabled);
        owed = List.copyOf(owed == null ? List.of() : owed);
        if (files.size() > 64 || running.size() > 8 || enabled.size() > 8 || owed.size() > 8) {
            throw new IllegalArgumentException("slurm: at most 64 files and 8 daemons or owed lines");
        }
        if (Stream.concat(running.stream(), enabled.stream())
                .anyMatch(u -> !UNIT.matcher(u).matches())) {
            throw new IllegalArgumentException("slurm: running and enabled are unit names");
        }
        if (owed.stream().anyMatch(l -> !StorageSeen.printable(l, 1024))) {
            throw new IllegalArgumentException("slurm: each owed line is one line of printable text");
        }
    }

    /**
     * Slurm's own authentication keys on a machine: never a key, only generations.
     *
     * @param file   the generation of the plan's slurm.jwks when the machine's file holds it (with its
     *               owner and mode); absent where it holds none, or another
     * @param loaded each daemon's generation its running process read (it started, or re-executed,
     *               after the file was written), by unit
     */
    public record JwksSeen(
            @JsonProperty("file") Long file,
            @JsonProperty("loaded") Map<String, Long> loaded) {
        /** What an agent reports where no slurm.jwks is planned. */
        public static final JwksSeen NONE = new JwksSeen(null, Map.of());

        public JwksSeen {
            loaded = Map.copyOf(loaded == null ? Map.of() : loaded);
            if (loaded.size() > 8
                    || loaded.keySet().stream().anyMatch(u -> !UNIT.matcher(u).matches())
                    || loaded.values().stream().anyMatch(g -> g == null || g < 1)
                    || file != null && file < 1) {
                throw new IllegalArgumentException("slurm: jwks says generations (1 or more) of at most 8 units");
            }
        }
    }

    /**
     * One file as it is.
     *
     * @param path   where it is
     * @param digest sha256 of its content; "" for a secret
     * @param text   its content where it is one short line and no secret; "" otherwise
     * @param mode   its permissions, as {@code rw-r--r--}
     */
    public record File(
            @JsonProperty("path") String path,
            @JsonProperty("digest") String digest,
            @JsonProperty("text") String text,
            @JsonProperty("mode") String mode,
            @JsonProperty("owner") String owner,
            @JsonProperty("group") String group) {
        public File {
            digest = StorageSeen.digest("digest", digest);
            text = text == null ? "" : text;
            if (path == null || path.length() > 4096 || !PATH.matcher(path).matches()) {
                throw new IllegalArgumentException("slurm: a file's path is an absolute path");
            }
            if (!StorageSeen.printable(text, TEXT_MAX)
                    || mode == null
                    || !mode.matches("[rwxsStT-]{9}")
                    || owner == null
                    || !StorageSeen.printable(owner, 64)
                    || group == null
                    || !StorageSeen.printable(group, 64)) {
                throw new IllegalArgumentException("slurm: a file's text, mode, owner and group are short lines");
            }
        }
    }
}
