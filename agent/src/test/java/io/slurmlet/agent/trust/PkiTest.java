package io.slurmlet.agent.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PkiTest {

    @TempDir
    Path dir;

    StandbyCredential standby(Path pki, String node, Duration life) throws Exception {
        return StandbyCredential.make(
                Files.readAllBytes(pki.resolve("ca.crt")), Files.readAllBytes(pki.resolve("ca.key")), node, life);
    }

    /** What the leader's agents' channel takes for a request handed on: a standby's certificate of its own CA, valid now. */
    @Test
    void aStandbysCredentialNamesItAndIsTakenOnlyFromItsOwnCaWhileValid() throws Exception {
        Pki pki = Pki.open(dir.resolve("a"), List.of("localhost"));
        StandbyCredential n2 = standby(dir.resolve("a"), "n2", Duration.ofMinutes(10));
        assertEquals(Optional.of("n2"), StandbyCredential.standbyOf(n2.certificate(), pki.ca()));
        assertTrue(n2.certificate().getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.2"), "client authentication");
        assertFalse(n2.toString().contains(n2.keyPem()) || n2.toString().contains("PRIVATE"), n2.toString());

        Pki other = Pki.open(dir.resolve("b"), List.of("localhost"));
        assertEquals(
                Optional.empty(),
                StandbyCredential.standbyOf(
                        standby(dir.resolve("b"), "n2", Duration.ofMinutes(10)).certificate(), pki.ca()),
                "another cluster's CA");
        assertEquals(
                Optional.empty(),
                StandbyCredential.standbyOf(
                        standby(dir.resolve("a"), "n2", Duration.ofMinutes(-1)).certificate(), pki.ca()),
                "ended");
        assertEquals(
                Optional.empty(),
                StandbyCredential.standbyOf(Pki.readCertificate(pki.leaderCertificateFile()), pki.ca()),
                "the leader's own certificate: the CA's, but for serving and naming no standby");
        assertEquals(Optional.empty(), StandbyCredential.standbyOf(other.ca(), other.ca()), "a CA is no standby");
    }
}
