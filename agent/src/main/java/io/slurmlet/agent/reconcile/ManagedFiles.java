package io.slurmlet.agent.reconcile;

import io.slurmlet.agent.system.Files;
import io.slurmlet.model.plan.ManagedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/** What every step that keeps a whole file does: compare content, mode, owner and group with the plan's, and write it whole. */
public final class ManagedFiles {

    private ManagedFiles() {}

    /** Whether the file as it is now is exactly as wanted: content, mode, owner and group. */
    public static boolean holds(
            Optional<Files.Stat> now, byte[] content, String permissions, String owner, String group) {
        return now.isPresent()
                && Arrays.equals(now.get().content(), content)
                && permissions.equals(now.get().mode())
                && owner.equals(now.get().owner())
                && group.equals(now.get().group());
    }

    public static boolean holds(Optional<Files.Stat> now, ManagedFile file) {
        return holds(
                now, file.content().getBytes(StandardCharsets.UTF_8), file.permissions(), file.owner(), file.group());
    }

    /** Writes {@code file} whole at {@code at} (atomically, through the port). */
    public static void write(Files files, Path at, ManagedFile file) throws IOException {
        files.write(
                at, file.content().getBytes(StandardCharsets.UTF_8), file.permissions(), file.owner(), file.group());
    }

    /** The sha256 of {@code content} in hex: how a machine reports a file it keeps, never by its content. */
    public static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Where an absolute path of a plan is on this machine: under {@code root}, which is {@code /} but in tests. */
    public static Path under(Path root, String absolute) {
        if (!absolute.startsWith("/")) {
            throw new IllegalArgumentException("not an absolute path: " + absolute);
        }
        return root.resolve(absolute.substring(1));
    }
}
