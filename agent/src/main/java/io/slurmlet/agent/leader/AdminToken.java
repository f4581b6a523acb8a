package io.slurmlet.agent.leader;

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
 * The admin token every /v1 call over TCP must carry. Made at the leader's first start into a
 * root-only file; ctl on another machine is given a copy. Never logged, never in any response.
 */
public final class AdminToken {

    public static final String FILE_NAME = "admin.token";

    private final byte[] token;
    private final Path file;

    private AdminToken(byte[] token, Path file) {
        this.token = token;
        this.file = file;
    }

    public static AdminToken loadOrCreate(Path file) throws IOException {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (text.length() < 32) {
                throw new IOException("the admin token in %s is shorter than 32 characters: remove the file and "
                        .formatted(file) + "restart the agent to make a new one");
            }
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            return new AdminToken(text.getBytes(StandardCharsets.US_ASCII), file);
        } catch (NoSuchFileException e) {
            AtomicFile.ensurePrivateDirectory(file.toAbsolutePath().getParent());
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String text = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            AtomicFile.write(file, (text + "\n").getBytes(StandardCharsets.US_ASCII),
                    PosixFilePermissions.fromString("rw-------"));
            return new AdminToken(text.getBytes(StandardCharsets.US_ASCII), file);
        }
    }

    /** Whether {@code presented} is the token, compared in constant time. */
    public boolean matches(String presented) {
        return presented != null
                && MessageDigest.isEqual(token, presented.strip().getBytes(StandardCharsets.US_ASCII));
    }

    public Path file() {
        return file;
    }

    @Override
    public String toString() {
        return "AdminToken[" + file + "]";
    }
}
