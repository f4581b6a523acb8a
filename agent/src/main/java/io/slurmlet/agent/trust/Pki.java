package io.slurmlet.agent.trust;

import io.slurmlet.agent.system.AtomicFile;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;

/**
 * The cluster's certificate authority and the leader's certificate, made at the leader's first
 * start in {@code pki/} of the state directory. Agents pin the CA by the sha256 of its public key
 * (as kubeadm's discovery-token-ca-cert-hash does) and then talk to the leader over TLS only. The
 * leader's certificate is made again, by the same CA, when the machine's names or addresses are no
 * longer all in it, or when it is within 30 days of its end; the CA is never replaced silently.
 */
public final class Pki {

    public static final String DIR = "pki";
    private static final Duration CA_LIFE = Duration.ofDays(3650);
    private static final Duration LEADER_LIFE = Duration.ofDays(825);
    private static final Duration RENEW_BEFORE = Duration.ofDays(30);

    private final Path dir;
    private final X509Certificate ca;

    private Pki(Path dir, X509Certificate ca) {
        this.dir = dir;
        this.ca = ca;
    }

    /**
     * Opens the PKI in {@code dir}, making the CA if there is none, and a leader certificate whose
     * subject alternative names hold every one of {@code names} (host names and IP addresses).
     */
    public static Pki open(Path dir, Collection<String> names) throws IOException {
        AtomicFile.ensurePrivateDirectory(dir);
        Path caCert = dir.resolve("ca.crt");
        Path caKey = dir.resolve("ca.key");
        try {
            X509Certificate ca;
            PrivateKey caPrivate;
            if (Files.exists(caCert) || Files.exists(caKey)) {
                ca = readCertificate(caCert);
                caPrivate = Certificates.readKey(caKey);
            } else {
                KeyPair pair = Certificates.keyPair();
                String id = HexFormat.of().formatHex(Certificates.random(6));
                X500Name subject = new X500Name("CN=slurmlet cluster CA " + id);
                Instant now = Instant.now();
                JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
                X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                                subject,
                                Certificates.serial(),
                                Date.from(now.minus(Duration.ofHours(1))),
                                Date.from(now.plus(CA_LIFE)),
                                subject,
                                pair.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                        .addExtension(
                                Extension.subjectKeyIdentifier,
                                false,
                                ext.createSubjectKeyIdentifier(pair.getPublic()));
                ca = Certificates.sign(builder, pair.getPrivate());
                caPrivate = pair.getPrivate();
                Certificates.writeKey(caKey, caPrivate);
                Certificates.writeCertificate(caCert, ca);
            }
            Pki pki = new Pki(dir, ca);
            if (!pki.leaderCertificateCovers(names)) {
                pki.issueLeaderCertificate(caPrivate, names);
            }
            return pki;
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException(
                    "cannot make or read the cluster's certificates in %s (%s): move the folder away "
                                    .formatted(dir, e.getMessage())
                            + "to make a new CA, then join every agent again",
                    e);
        }
    }

    /** Every name and address this machine answers to: its host name, localhost, each interface's addresses. */
    public static Set<String> localNames(Collection<String> extra) {
        Set<String> names = new TreeSet<>(extra);
        names.add("localhost");
        names.add("127.0.0.1");
        try {
            names.add(InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            // no resolvable host name: the addresses below still serve
        }
        try {
            for (var nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (!address.isLinkLocalAddress()) {
                        names.add(address.getHostAddress().replaceAll("%.*$", ""));
                    }
                }
            }
        } catch (IOException e) {
            // no interfaces to list: loopback and the host name serve
        }
        return names;
    }

    /** The pin agents join with: {@code sha256:} and the hex sha256 of the CA's public key info. */
    public String caHash() {
        return caHash(ca);
    }

    public static String caHash(X509Certificate ca) {
        try {
            return "sha256:"
                    + HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256")
                                    .digest(ca.getPublicKey().getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public String caPem() {
        try {
            return Certificates.pem("CERTIFICATE", ca.getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public Path caFile() {
        return dir.resolve("ca.crt");
    }

    /** The cluster's CA certificate. */
    public X509Certificate ca() {
        return ca;
    }

    public Path leaderCertificateFile() {
        return dir.resolve("leader.crt");
    }

    public Path leaderKeyFile() {
        return dir.resolve("leader.key");
    }

    private boolean leaderCertificateCovers(Collection<String> names) throws IOException, GeneralSecurityException {
        if (!Files.exists(leaderCertificateFile()) || !Files.exists(leaderKeyFile())) {
            return false;
        }
        X509Certificate leader = readCertificate(leaderCertificateFile());
        try {
            leader.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            return false;
        }
        if (leader.getNotAfter().toInstant().isBefore(Instant.now().plus(RENEW_BEFORE))) {
            return false;
        }
        Set<String> has = new HashSet<>();
        if (leader.getSubjectAlternativeNames() != null) {
            for (List<?> san : leader.getSubjectAlternativeNames()) {
                has.add(String.valueOf(san.get(1)));
            }
        }
        return has.containsAll(names.stream().map(Pki::canonical).toList());
    }

    private void issueLeaderCertificate(PrivateKey caPrivate, Collection<String> names)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        KeyPair pair = Certificates.keyPair();
        List<GeneralName> sans = new ArrayList<>();
        for (String name : new TreeSet<>(names)) {
            sans.add(
                    isAddress(name)
                            ? new GeneralName(GeneralName.iPAddress, name)
                            : new GeneralName(GeneralName.dNSName, name));
        }
        Instant now = Instant.now();
        X509Certificate leader = Certificates.endEntity(
                ca,
                caPrivate,
                "CN=slurmlet leader",
                pair,
                now.minus(Duration.ofHours(1)),
                now.plus(LEADER_LIFE),
                KeyPurposeId.id_kp_serverAuth,
                sans);
        Certificates.writeKey(leaderKeyFile(), pair.getPrivate());
        Certificates.writeCertificate(leaderCertificateFile(), leader);
    }

    /** An address as the certificate's SAN reads back: IPv6 in full form. */
    private static String canonical(String name) {
        if (!isAddress(name)) {
            return name;
        }
        try {
            String text = InetAddress.getByName(name).getHostAddress();
            return name.contains(":") ? text.replaceAll("%.*$", "") : text;
        } catch (IOException e) {
            return name;
        }
    }

    private static boolean isAddress(String name) {
        return name.contains(":") || name.matches("[0-9.]+");
    }

    public static X509Certificate readCertificate(Path file) throws IOException, GeneralSecurityException {
        return parseCertificate(Files.readAllBytes(file));
    }

    public static X509Certificate parseCertificate(byte[] pem) throws GeneralSecurityException {
        return (X509Certificate)
                CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    }

    @Override
    public String toString() {
        return "Pki[" + dir + ", CA " + caHash() + "]";
    }
}
