package io.slurmlet.agent.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The join token of a machine that has not joined yet, in a file only the agent's user can read
 * ({@code /etc/slurmlet/join-token}, which {@code slurmlet-agent join} writes): read by the join,
 * never put in an environment (every process the agent starts, those that run as a user included,
 * would be handed it), and removed once the machine holds its own credential, so that nothing on a
 * joined machine can join another.
 */
public final class JoinTokenFile {

    /** A join token as the leader makes them; anything else in the file is a mistake, said as such. */
    static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_.-]{32,256}");

    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);

    private JoinTokenFile() {}

    /**
     * The token in {@code file}; empty where there is no such file. Refused: a file that is not a
     * plain file of the agent's own user, or that its group or others may use (the token is then
     * not secret any more: make a new one), or that holds anything but one token.
     */
    public static Optional<String> read(Path file) throws IOException {
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (!a.isRegularFile()) {
            throw new IOException(
                    "%s is not a plain file: write the join token there with slurmlet-agent join".formatted(file));
        }
        Object owner = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        long me = agentUid();
        if (((Number) owner).longValue() != me || a.permissions().stream().anyMatch(OTHERS::contains)) {
            throw new IOException(
                    ("%s is readable by others than the agent's user (owner uid %s, mode %s): a join token others "
                                    + "could read is no longer secret; revoke it (ctl slurm join-token revoke ID on the leader) and join with a new one, "
                                    + "which slurmlet-agent join writes root-only")
                            .formatted(file, owner, PosixFilePermissions.toString(a.permissions())));
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        if (!TOKEN.matcher(text).matches()) {
            throw new IOException(
                    "%s does not hold a join token (32 or more of A-Z a-z 0-9 _ - .): copy the line 'ctl slurm join-token' "
                                    .formatted(file)
                            + "prints on the leader again");
        }
        return Optional.of(text);
    }

    /** Removes {@code file} once the machine holds its credential; says whether there was one. */
    public static boolean forget(Path file) throws IOException {
        return Files.deleteIfExists(file);
    }

    /** The uid the agent runs as, from /proc/self (no native call). */
    static long agentUid() throws IOException {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    }
}
