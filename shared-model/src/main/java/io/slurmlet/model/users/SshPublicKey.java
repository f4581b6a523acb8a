package io.slurmlet.model.users;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.spec.ECFieldFp;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

/**
 * An SSH public key line ({@code TYPE BASE64 [COMMENT]}, as in id_ed25519.pub) read with OpenSSH's
 * rules (sshkey_from_blob): the base64 must be canonical, the blob must hold the line's type and then
 * exactly that type's fields (RFC 4253 6.6, RFC 5656, RFC 8709, OpenSSH's PROTOCOL.u2f), nothing
 * after them; an RSA modulus of 1024 to 16384 bits, an ECDSA point on its curve, an Ed25519 key of
 * 32 bytes. A key sshd would skip is refused here, so an account never holds a key that does nothing.
 * Written here rather than taken from a library: Bouncy Castle's OpenSSH reader knows no security-key
 * (sk-) types, and the shared model carries no crypto library; the format is small and fixed.
 *
 * @param type the key's type, as on the line
 * @param base64 the blob, as on the line: what identifies the key
 */
public record SshPublicKey(String type, String base64) {

    /** The curve of each ECDSA type, by the name the blob repeats and the JDK's name. */
    private static final Map<String, String[]> CURVES = Map.of(
            "ecdsa-sha2-nistp256", new String[] {"nistp256", "secp256r1"},
            "ecdsa-sha2-nistp384", new String[] {"nistp384", "secp384r1"},
            "ecdsa-sha2-nistp521", new String[] {"nistp521", "secp521r1"},
            "sk-ecdsa-sha2-nistp256@openssh.com", new String[] {"nistp256", "secp256r1"});

    /** What a line that is not a usable key gets: the sentence says why, for the problem's message. */
    public static final class NotAKey extends Exception {
        NotAKey(String why) {
            super(why, null, false, false);
        }
    }

    /** The key on {@code line}; {@link NotAKey} says why sshd would not take it. */
    public static SshPublicKey parse(String line) throws NotAKey {
        String[] parts = line.strip().split("\\s+");
        if (parts.length < 2) {
            throw new NotAKey("it has no base64 after its type");
        }
        String type = parts[0];
        if (!type.equals("ssh-ed25519")
                && !type.equals("ssh-rsa")
                && !type.equals("sk-ssh-ed25519@openssh.com")
                && !CURVES.containsKey(type)) {
            throw new NotAKey(
                    "its type " + (type.length() > 40 ? type.substring(0, 40) + "…" : type) + " is not one sshd takes");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(parts[1]);
        } catch (IllegalArgumentException e) {
            raw = null;
        }
        if (raw == null || !Base64.getEncoder().encodeToString(raw).equals(parts[1])) {
            throw new NotAKey("its base64 is not whole: cut short, with characters added, or not base64");
        }
        ByteBuffer blob = ByteBuffer.wrap(raw);
        String inner = new String(string(blob, "its type"), StandardCharsets.US_ASCII);
        if (!inner.equals(type)) {
            throw new NotAKey("its base64 holds a key of another type than " + type);
        }
        switch (type) {
            case "ssh-ed25519", "sk-ssh-ed25519@openssh.com" -> {
                if (string(blob, "its Ed25519 key").length != 32) {
                    throw new NotAKey("its Ed25519 key is not 32 bytes");
                }
            }
            case "ssh-rsa" -> {
                BigInteger e = mpint(blob, "its RSA exponent");
                BigInteger n = mpint(blob, "its RSA modulus");
                if (e.signum() <= 0 || !e.testBit(0)) {
                    throw new NotAKey("its RSA exponent is not a positive odd number");
                }
                if (n.bitLength() < 1024 || n.bitLength() > 16384) {
                    throw new NotAKey("its RSA modulus has %d bits: sshd takes 1024 to 16384".formatted(n.bitLength()));
                }
            }
            default -> {
                String[] curve = CURVES.get(type);
                if (!new String(string(blob, "its curve"), StandardCharsets.US_ASCII).equals(curve[0])) {
                    throw new NotAKey("its curve is not " + curve[0]);
                }
                onCurve(string(blob, "its ECDSA point"), curve[1]);
            }
        }
        if (type.startsWith("sk-")) {
            string(blob, "its security key's application");
        }
        if (blob.hasRemaining()) {
            throw new NotAKey("its base64 holds %d bytes after the key".formatted(blob.remaining()));
        }
        return new SshPublicKey(type, parts[1]);
    }

    /** What identifies the key, whatever its comment: its type and base64. */
    public String identity() {
        return type + " " + base64;
    }

    private static byte[] string(ByteBuffer blob, String what) throws NotAKey {
        if (blob.remaining() < 4) {
            throw new NotAKey("its base64 ends before " + what);
        }
        int n = blob.getInt();
        if (n < 0 || n > blob.remaining()) {
            throw new NotAKey("its base64 ends inside " + what);
        }
        byte[] value = new byte[n];
        blob.get(value);
        return value;
    }

    /** An SSH mpint (RFC 4251 5): two's complement, no needless leading byte. */
    private static BigInteger mpint(ByteBuffer blob, String what) throws NotAKey {
        byte[] bytes = string(blob, what);
        if (bytes.length == 0) {
            return BigInteger.ZERO;
        }
        if ((bytes[0] & 0x80) != 0) {
            throw new NotAKey(what + " is negative");
        }
        if (bytes.length > 1 && bytes[0] == 0 && (bytes[1] & 0x80) == 0) {
            throw new NotAKey(what + " has a needless leading zero");
        }
        return new BigInteger(1, bytes);
    }

    /** An uncompressed point (0x04 X Y) that lies on the curve, as OpenSSH's sshkey_ec_validate_public asks. */
    private static void onCurve(byte[] point, String jdkName) throws NotAKey {
        ECParameterSpec spec;
        try {
            AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
            parameters.init(new ECGenParameterSpec(jdkName));
            spec = parameters.getParameterSpec(ECParameterSpec.class);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK knows no curve " + jdkName, e);
        }
        BigInteger p = ((ECFieldFp) spec.getCurve().getField()).getP();
        int size = (p.bitLength() + 7) / 8;
        if (point.length != 1 + 2 * size || point[0] != 4) {
            throw new NotAKey("its ECDSA point is not an uncompressed point of its curve");
        }
        BigInteger x = new BigInteger(1, Arrays.copyOfRange(point, 1, 1 + size));
        BigInteger y = new BigInteger(1, Arrays.copyOfRange(point, 1 + size, point.length));
        BigInteger a = spec.getCurve().getA();
        BigInteger b = spec.getCurve().getB();
        if (x.compareTo(p) >= 0
                || y.compareTo(p) >= 0
                || !y.pow(2).mod(p).equals(x.pow(3).add(a.multiply(x)).add(b).mod(p))) {
            throw new NotAKey("its ECDSA point is not on its curve");
        }
    }
}
