package io.slurmlet.agent.trust;

import io.slurmlet.agent.system.AtomicFile;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
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

/** Keys, certificates and their PEM text, as the cluster's CA, the leader and a standby use them. */
final class Certificates {

    static final String SIGNATURE = "SHA256withECDSA";

    private Certificates() {}

    /**
     * A certificate {@code ca} signs for {@code pair}'s key, for one purpose: the leader's for serving,
     * a standby's for client authentication, each with its subject alternative names.
     */
    static X509Certificate endEntity(
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

    static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
    }

    static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    static BigInteger serial() {
        return new BigInteger(1, random(16));
    }

    static byte[] random(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return b;
    }

    static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
        return parseKey(Files.readAllBytes(file));
    }

    static PrivateKey parseKey(byte[] pem) throws GeneralSecurityException {
        String text = new String(pem, StandardCharsets.US_ASCII)
                .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "")
                .replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(text)));
    }

    static void writeKey(Path file, PrivateKey key) throws IOException {
        AtomicFile.write(
                file,
                pem("PRIVATE KEY", key.getEncoded()).getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-------"));
    }

    static void writeCertificate(Path file, X509Certificate certificate) throws IOException, GeneralSecurityException {
        AtomicFile.write(
                file,
                pem("CERTIFICATE", certificate.getEncoded()).getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-r--r--"));
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
