package io.slurmlet.agent.node;

import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;

/**
 * What a machine's agent keeps between starts, in {@code node/} of the state directory, root-only:
 * the cluster CA it pinned, its own credential, the last plan it was given (which holds the
 * munge key), and the leader's last reconnection window. With the leader down the agent changes nothing; the plan on disk is what it applies
 * first when the leader answers again with the same revision.
 */
public final class NodeState {

    public static final String DIR = "node";
    private static final String CA = "ca.crt";
    private static final String CREDENTIAL = "credential";
    private static final String PLAN = "plan.json";
    private static final String WINDOW = "reconnect-window";

    private final Path dir;

    private NodeState(Path dir) {
        this.dir = dir;
    }

    public static NodeState open(Path stateDir) throws IOException {
        Path dir = stateDir.resolve(DIR);
        AtomicFile.ensurePrivateDirectory(dir);
        for (String name : new String[] {CA, CREDENTIAL, PLAN, WINDOW}) {
            AtomicFile.removeLeftovers(dir.resolve(name));
        }
        return new NodeState(dir);
    }

    /** The CA and credential of a machine that has joined; empty before it has. */
    public Optional<Joined> joined() throws IOException {
        try {
            X509Certificate ca = Pki.readCertificate(dir.resolve(CA));
            String credential = Files.readString(dir.resolve(CREDENTIAL), StandardCharsets.US_ASCII)
                    .strip();
            return credential.isEmpty() ? Optional.empty() : Optional.of(new Joined(ca, credential));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            throw new IOException(
                    "the pinned CA in %s cannot be read (%s): remove %s and join this machine again"
                            .formatted(dir.resolve(CA), e.getMessage(), dir),
                    e);
        }
    }

    public void saveJoined(X509Certificate ca, String credential) throws IOException {
        try {
            AtomicFile.write(
                    dir.resolve(CA),
                    ("-----BEGIN CERTIFICATE-----\n"
                                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                                            .encodeToString(ca.getEncoded())
                                    + "\n-----END CERTIFICATE-----\n")
                            .getBytes(StandardCharsets.US_ASCII),
                    PosixFilePermissions.fromString("rw-r--r--"));
        } catch (GeneralSecurityException e) {
            throw new IOException(e);
        }
        AtomicFile.write(
                dir.resolve(CREDENTIAL),
                (credential + "\n").getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-------"));
    }

    /** Forgets the credential (the leader no longer knows it); the pinned CA stays. */
    public void forgetCredential() throws IOException {
        Files.deleteIfExists(dir.resolve(CREDENTIAL));
    }

    /** The last plan this machine was given; empty before the first. */
    public Optional<PublishedPlan> plan() throws IOException {
        try {
            return Optional.of(
                    SettingsJson.STRICT.readValue(Files.readAllBytes(dir.resolve(PLAN)), PublishedPlan.class));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // Not the machine's truth, only a cache of the leader's: the next poll fetches it again.
            Files.deleteIfExists(dir.resolve(PLAN));
            return Optional.empty();
        }
    }

    public void savePlan(PublishedPlan plan) throws IOException {
        AtomicFile.write(
                dir.resolve(PLAN),
                SettingsJson.STRICT.writeValueAsBytes(plan),
                PosixFilePermissions.fromString("rw-------"));
    }

    /**
     * The reconnection window the leader gave last ({@link Leader#reconnectWindow()}), kept so that
     * an agent that starts while the leader is away (a whole site powered on at once) spreads its
     * calls over it too; none before the first answer, or where the file is not a window.
     */
    public Duration reconnectWindow() throws IOException {
        try {
            return LeaderCalls.window(Files.readString(dir.resolve(WINDOW), StandardCharsets.US_ASCII));
        } catch (NoSuchFileException | MalformedInputException e) {
            return Duration.ZERO;
        }
    }

    public void saveReconnectWindow(Duration window) throws IOException {
        AtomicFile.write(
                dir.resolve(WINDOW),
                (window.toSeconds() + "\n").getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-------"));
    }

    /** A joined machine's trust and identity. */
    public record Joined(X509Certificate ca, String credential) {
        @Override
        public String toString() {
            return "Joined[credential not shown]";
        }
    }
}
