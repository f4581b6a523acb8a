package io.slurmlet.agent.trust;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.operator.OperatorCreationException;

/**
 * A leader-eligible agent's credential of its own as a standby: a new key, and a certificate of
 * the cluster's CA for it (client authentication only; its subject alternative name the URI
 * {@code slurmlet:standby:NODE}), which the leader's agents' channel takes for handing admin
 * requests on. Made from the CA's key, which every leader-eligible agent takes from etcd (sealed)
 * since any of them may lead; valid for {@code life}.
 */
public record StandbyCredential(String node, PrivateKey key, X509Certificate certificate) {

    /** What a standby's certificate names, after this prefix: the standby's machine. */
    static final String PREFIX = "slurmlet:standby:";

    public String keyPem() {
        return Certificates.pem("PRIVATE KEY", key.getEncoded());
    }

    public String certificatePem() {
        try {
            return Certificates.pem("CERTIFICATE", certificate.getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "StandbyCredential[" + node + ", until "
                + certificate.getNotAfter().toInstant() + ", key not shown]";
    }

    /** A new one for {@code node}, from the cluster's CA (certificate and key, PEM), valid for {@code life}. */
    public static StandbyCredential make(byte[] caPem, byte[] caKeyPem, String node, Duration life) throws IOException {
        try {
            KeyPair pair = Certificates.keyPair();
            Instant now = Instant.now();
            X509Certificate certificate = Certificates.endEntity(
                    Pki.parseCertificate(caPem),
                    Certificates.parseKey(caKeyPem),
                    "CN=slurmlet standby",
                    pair,
                    now.minus(Duration.ofMinutes(5)),
                    now.plus(life),
                    KeyPurposeId.id_kp_clientAuth,
                    List.of(new GeneralName(GeneralName.uniformResourceIdentifier, PREFIX + node)));
            return new StandbyCredential(node, pair.getPrivate(), certificate);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("cannot make this standby's credential from the cluster's CA: " + e.getMessage(), e);
        }
    }

    /**
     * The standby {@code peer} is a credential of, where it is one: signed by {@code ca}, valid now,
     * for client authentication, and naming a standby. Empty for anything else (an agent's
     * connection has no certificate; the leader's own is the CA's too, but for serving).
     */
    public static Optional<String> standbyOf(X509Certificate peer, X509Certificate ca) {
        try {
            peer.verify(ca.getPublicKey());
            peer.checkValidity();
            List<String> usages = peer.getExtendedKeyUsage();
            if (usages == null
                    || !usages.contains(KeyPurposeId.id_kp_clientAuth.getId())
                    || peer.getSubjectAlternativeNames() == null) {
                return Optional.empty();
            }
            for (List<?> san : peer.getSubjectAlternativeNames()) {
                if (Integer.valueOf(GeneralName.uniformResourceIdentifier).equals(san.get(0))
                        && String.valueOf(san.get(1)).startsWith(PREFIX)) {
                    return Optional.of(String.valueOf(san.get(1)).substring(PREFIX.length()));
                }
            }
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            return Optional.empty();
        }
    }
}
