package io.slurmlet.agent.trust;

import io.slurmlet.agent.system.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A secret token in a root-only file, made at the leader's first start: the admin token every /v1
 * call over TCP must carry (ctl on another machine is given a copy), and the join token a new
 * machine's agent presents once. Never logged, never in any response but the one made to hand it
 * out ({@code ctl slurm join-token}).
 */
public final class TokenFile {

    /** The admin token's file in the state directory. */
    public static final String FILE_NAME = "admin.token";
    /** The join token's file in the state directory. */
    public static final String JOIN_FILE_NAME = "join.token";

    private final byte[] token;
    private final Path file;

    private TokenFile(byte[] token, Path file) {
        this.token = token;
        this.file = file;
    }

    public static TokenFile loadOrCreate(Path file) throws IOException {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (text.length() < 32) {
                throw new IOException(
                        "the token in %s is shorter than 32 characters: remove the file and ".formatted(file)
                                + "restart the agent to make a new one");
            }
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            return new TokenFile(text.getBytes(StandardCharsets.US_ASCII), file);
        } catch (NoSuchFileException e) {
            AtomicFile.ensurePrivateDirectory(file.toAbsolutePath().getParent());
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String text = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            AtomicFile.write(
                    file,
                    (text + "\n").getBytes(StandardCharsets.US_ASCII),
                    PosixFilePermissions.fromString("rw-------"));
            return new TokenFile(text.getBytes(StandardCharsets.US_ASCII), file);
        }
    }

    /** Whether {@code presented} is the token, compared in constant time. */
    public boolean matches(String presented) {
        return presented != null
                && MessageDigest.isEqual(token, presented.strip().getBytes(StandardCharsets.US_ASCII));
    }

    /** The token itself: only for the one response that hands it out. */
    public String reveal() {
        return new String(token, StandardCharsets.US_ASCII);
    }

    public Path file() {
        return file;
    }

    @Override
    public String toString() {
        return "TokenFile[" + file + ", not shown]";
    }
}
