package io.slurmlet.model.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keys are read as OpenSSH reads them: the keys ssh-keygen made are taken (each line below is a
 * real key, made with {@code ssh-keygen -t TYPE -b BITS}), and each way a line can look like a key
 * but not be one for sshd is refused with its reason. HostileInputTest has ssh-keygen itself read
 * back every key the fuzzer got accepted.
 */
class SshPublicKeyTest {

    static final String ED25519 =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILFpbexset2vTqt85RXNrMlMPexPXvzWEa9SlJvqAwPE alice@lab";
    static final String RSA_2048 =
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCyeXxOSkvzQPJ3+fW8MOI/cRJqAO5bNrQXgyq+0qqreQEz1pUfsQoxVmLmPm1Kdkn1F82rktkoDMgO+PQG+kx+Y3RDs93/uCd3bxQJxQriGIMHWW3BRwCWhT+vzbv9IZ2i4smIFKAuw8tZYTYgw3Jj41kN7MihD6xybSIsBoTn8o4OiyI1pBXRdstYxldWJJvv38fI0YBQWloy7wqII4+Qv3XLeM++n4YF6TUIulTRH9ezNZkCOdZ8BavbnKU06ItPyse8tiiFGO0r+eKJF2VrTzsibGxTRJsQkDse0rFA1hCk318AusSGdE7O+lGIH2ThkACH2/Vme9Y5wafJr7YV alice@lab";
    static final String RSA_1024 =
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDm4k+hp+ekxhlVqhBLCQdkK5ZVyFV8G+xEYGdiQvRy8pLGQaZy0f/e6BqZWM5SzCbI3gbQyEPmSL+2DcYa9TUuwYnGFz8RQ44xVqQDUURcm9g2awOQ80WGCmBE6eFpLb7Btn2ZoiTE94msR5GWeBWtYFCK2Fqj4I7kmm+zNI4H4w== alice@lab";
    static final String ECDSA_256 =
            "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBDfrNpG3iGTLhg47J0ncqLqw0sXXtcRduNtgFXQOaD4iERmf/k4id5QDuYvA1OThtOUR6gO82LeBNJqTthmlIbM= alice@lab";
    static final String ECDSA_384 =
            "ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBOt6JQDbkvIk82fHgP8SVAuf6hc2lmWD98T3IlUq/S32auJFybhxNob+1aiRmZRmekGdB+8WI/ZQu7KJSksA8/dSg54p4bdZ5V/zMdxf+KVJhUtU9uVCpF374hDQz2M6bA== alice@lab";
    static final String ECDSA_521 =
            "ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBABUhYolMT0LikofZjrHMIFvgoUs4yB38jrq8gPGU/0LKDubtyOqy24odueP8SFbTawz/6OPZVyDnVYk8Ys21hps+gHcJ/1v4lZHcNJFi4l/H9sJCH6WYbL2bpfEZiH7TEjKcm7xFA+6c5HYACqWobz1iI00mb46spyZhqxIXwDd9nvRAw== alice@lab";

    @ParameterizedTest
    @ValueSource(strings = {ED25519, RSA_2048, RSA_1024, ECDSA_256, ECDSA_384, ECDSA_521})
    void everyKeySshKeygenMakesIsTakenWithOrWithoutItsComment(String line) throws Exception {
        String[] parts = line.split(" ");
        assertEquals(new SshPublicKey(parts[0], parts[1]), SshPublicKey.parse(line));
        assertEquals(new SshPublicKey(parts[0], parts[1]), SshPublicKey.parse(parts[0] + " " + parts[1]));
    }

    @ParameterizedTest
    @ValueSource(strings = {ED25519, RSA_2048, ECDSA_256, ECDSA_521})
    void aBase64WithCharactersAddedOrCutIsRefused(String line) {
        String[] parts = line.split(" ");
        refused(parts[0] + " " + parts[1] + "ALL alice", "its base64 is not whole");
        refused(
                parts[0] + " " + parts[1].substring(0, parts[1].length() - 4) + " alice",
                "its base64 ends inside its ");
        if (parts[1].endsWith("=")) {
            refused(parts[0] + " " + parts[1].replace("=", "") + " alice", "its base64 is not whole");
        }
    }

    @Test
    void bytesAfterTheKeyAreRefused() {
        byte[] blob = Base64.getDecoder().decode(ED25519.split(" ")[1]);
        byte[] longer = java.util.Arrays.copyOf(blob, blob.length + 3);
        refused("ssh-ed25519 " + Base64.getEncoder().encodeToString(longer), "its base64 holds 3 bytes after the key");
    }

    @Test
    void aKeyOfTheWrongSizeOrTypeIsRefused() {
        refused("ssh-ed25519 " + b64(wire(str("ssh-ed25519"), str(new byte[31]))), "its Ed25519 key is not 32 bytes");
        refused("ssh-rsa " + ED25519.split(" ")[1], "its base64 holds a key of another type than ssh-rsa");
        refused("ssh-dss " + ED25519.split(" ")[1], "its type ssh-dss is not one sshd takes");
        refused("ssh-ed25519", "it has no base64 after its type");
        refused("ssh-ed25519 AAAA", "its base64 ends before its type");
        refused("ssh-ed25519 not-base64!", "its base64 is not whole");
    }

    @Test
    void anRsaKeyUnder1024BitsOrWithAnEvenExponentIsRefused() {
        BigInteger n768 = BigInteger.ONE.shiftLeft(767).add(BigInteger.valueOf(12345));
        refused(
                "ssh-rsa " + b64(wire(str("ssh-rsa"), mpint(BigInteger.valueOf(65537)), mpint(n768))),
                "its RSA modulus has 768 bits: sshd takes 1024 to 16384");
        BigInteger n2048 = BigInteger.ONE.shiftLeft(2047).add(BigInteger.valueOf(12345));
        refused(
                "ssh-rsa " + b64(wire(str("ssh-rsa"), mpint(BigInteger.valueOf(65536)), mpint(n2048))),
                "its RSA exponent is not a positive odd number");
        byte[] negative = new byte[257];
        negative[0] = (byte) 0x80;
        refused(
                "ssh-rsa " + b64(wire(str("ssh-rsa"), mpint(BigInteger.valueOf(65537)), str(negative))),
                "its RSA modulus is negative");
    }

    @Test
    void anEcdsaPointOffItsCurveOrOfAnotherCurveIsRefused() {
        byte[] blob = Base64.getDecoder().decode(ECDSA_256.split(" ")[1]);
        blob[blob.length - 1] ^= 1;
        refused("ecdsa-sha2-nistp256 " + b64(blob), "its ECDSA point is not on its curve");
        byte[] p384 = Base64.getDecoder().decode(ECDSA_384.split(" ")[1]);
        refused(
                "ecdsa-sha2-nistp256 "
                        + b64(wire(
                                str("ecdsa-sha2-nistp256"),
                                str("nistp384"),
                                java.util.Arrays.copyOfRange(p384, 4 + 19 + 4 + 8, p384.length))),
                "its curve is not nistp256");
    }

    @Test
    void aSecurityKeyCarriesItsApplication() throws Exception {
        byte[] pk = Base64.getDecoder().decode(ED25519.split(" ")[1]);
        byte[] key = java.util.Arrays.copyOfRange(pk, pk.length - 32, pk.length);
        String type = "sk-ssh-ed25519@openssh.com";
        String line = type + " " + b64(wire(str(type), str(key), str("ssh:"))) + " alice@yubikey";
        assertEquals(type, SshPublicKey.parse(line).type());
        refused(type + " " + b64(wire(str(type), str(key))), "its base64 ends before its security key's application");
    }

    static void refused(String line, String why) {
        SshPublicKey.NotAKey e = assertThrows(SshPublicKey.NotAKey.class, () -> SshPublicKey.parse(line), line);
        assertTrue(e.getMessage().startsWith(why), e.getMessage());
    }

    static byte[] str(String s) {
        return str(s.getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] str(byte[] value) {
        return ByteBuffer.allocate(4 + value.length)
                .putInt(value.length)
                .put(value)
                .array();
    }

    static byte[] mpint(BigInteger n) {
        return str(n.toByteArray());
    }

    static byte[] wire(byte[]... fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] f : fields) {
            out.writeBytes(f);
        }
        return out.toByteArray();
    }

    static String b64(byte[] blob) {
        return Base64.getEncoder().encodeToString(blob);
    }
}
