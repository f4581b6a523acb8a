package io.slurmlet.agent.trust;

import io.slurmlet.agent.system.AtomicFile;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

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
    private static final String SIGNATURE = "SHA256withECDSA";

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
                caPrivate = readKey(caKey);
            } else {
                KeyPair pair = keyPair();
                String id = HexFormat.of().formatHex(random(6));
                X500Name subject = new X500Name("CN=slurmlet cluster CA " + id);
                Instant now = Instant.now();
                JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
                X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                                subject,
                                serial(),
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
                ca = sign(builder, pair.getPrivate());
                caPrivate = pair.getPrivate();
                writeKey(caKey, caPrivate);
                writeCertificate(caCert, ca);
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
            return pem("CERTIFICATE", ca.getEncoded());
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

    /** What a standby's certificate names, after this prefix: the standby's machine. */
    static final String STANDBY = "slurmlet:standby:";

    /**
     * A leader-eligible agent's credential of its own as a standby: a new key, and a certificate of
     * the cluster's CA for it (client authentication only; its subject alternative name the URI
     * {@code slurmlet:standby:NODE}), which the leader's agents' channel takes for handing admin
     * requests on. Made from the CA's key, which every leader-eligible agent takes from etcd (sealed)
     * since any of them may lead; valid for {@code life}.
     */
    public record StandbyCredential(String node, PrivateKey key, X509Certificate certificate) {
        public String keyPem() {
            return pem("PRIVATE KEY", key.getEncoded());
        }

        public String certificatePem() {
            try {
                return pem("CERTIFICATE", certificate.getEncoded());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String toString() {
            return "StandbyCredential[" + node + ", until "
                    + certificate.getNotAfter().toInstant() + ", key not shown]";
        }
    }

    public static StandbyCredential standbyCredential(byte[] caPem, byte[] caKeyPem, String node, Duration life)
            throws IOException {
        try {
            KeyPair pair = keyPair();
            Instant now = Instant.now();
            X509Certificate certificate = endEntity(
                    parseCertificate(caPem),
                    parseKey(caKeyPem),
                    "CN=slurmlet standby",
                    pair,
                    now.minus(Duration.ofMinutes(5)),
                    now.plus(life),
                    KeyPurposeId.id_kp_clientAuth,
                    List.of(new GeneralName(GeneralName.uniformResourceIdentifier, STANDBY + node)));
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
                        && String.valueOf(san.get(1)).startsWith(STANDBY)) {
                    return Optional.of(String.valueOf(san.get(1)).substring(STANDBY.length()));
                }
            }
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            return Optional.empty();
        }
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
        KeyPair pair = keyPair();
        List<GeneralName> sans = new ArrayList<>();
        for (String name : new TreeSet<>(names)) {
            sans.add(
                    isAddress(name)
                            ? new GeneralName(GeneralName.iPAddress, name)
                            : new GeneralName(GeneralName.dNSName, name));
        }
        Instant now = Instant.now();
        X509Certificate leader = endEntity(
                ca,
                caPrivate,
                "CN=slurmlet leader",
                pair,
                now.minus(Duration.ofHours(1)),
                now.plus(LEADER_LIFE),
                KeyPurposeId.id_kp_serverAuth,
                sans);
        writeKey(leaderKeyFile(), pair.getPrivate());
        writeCertificate(leaderCertificateFile(), leader);
    }

    /**
     * A certificate {@code ca} signs for {@code pair}'s key, for one purpose: the leader's for serving,
     * a standby's for client authentication, each with its subject alternative names.
     */
    private static X509Certificate endEntity(
            X509Certificate ca,
            PrivateKey caPrivate,
            String subject,
            KeyPair pair,
            Instant from,
            Instant until,
            KeyPurposeId purpose,
            List<GeneralName> sans)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                        ca, serial(), Date.from(from), Date.from(until), new X500Name(subject), pair.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                .addExtension(
                        Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(GeneralName[]::new)))
                .addExtension(
                        Extension.authorityKeyIdentifier,
                        false,
                        new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(ca));
        return sign(builder, caPrivate);
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

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(1, random(16));
    }

    private static byte[] random(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return b;
    }

    public static X509Certificate readCertificate(Path file) throws IOException, GeneralSecurityException {
        return parseCertificate(Files.readAllBytes(file));
    }

    public static X509Certificate parseCertificate(byte[] pem) throws GeneralSecurityException {
        return (X509Certificate)
                CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    }

    private static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
        return parseKey(Files.readAllBytes(file));
    }

    private static PrivateKey parseKey(byte[] pem) throws GeneralSecurityException {
        String text = new String(pem, StandardCharsets.US_ASCII)
                .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "")
                .replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(text)));
    }

    private static void writeKey(Path file, PrivateKey key) throws IOException {
        AtomicFile.write(
                file,
                pem("PRIVATE KEY", key.getEncoded()).getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-------"));
    }

    private static void writeCertificate(Path file, X509Certificate certificate)
            throws IOException, GeneralSecurityException {
        AtomicFile.write(
                file,
                pem("CERTIFICATE", certificate.getEncoded()).getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-r--r--"));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    @Override
    public String toString() {
        return "Pki[" + dir + ", CA " + caHash() + "]";
    }
}
