package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * The cluster's munge key: the secret every Slurm machine shares. It reaches a machine only in
 * that machine's plan, over the agents' TLS channel; it never appears in a log, a status or an
 * error, so {@link #toString()} names nothing of it.
 */
public final class MungeKey {

    /** munge's own key files are 1024 bytes of randomness. */
    public static final int BYTES = 1024;

    private final byte[] key;

    private MungeKey(byte[] key) {
        this.key = key.clone();
    }

    public static MungeKey random() {
        byte[] key = new byte[BYTES];
        new SecureRandom().nextBytes(key);
        return new MungeKey(key);
    }

    public static MungeKey of(byte[] key) {
        if (key.length < 32) {
            throw new IllegalArgumentException("a munge key of " + key.length + " bytes is too short: munge wants at least 32");
        }
        return new MungeKey(key);
    }

    /** The key in a plan's JSON: base64, read only by the machine the plan is for. */
    @JsonCreator
    public static MungeKey fromBase64(String base64) {
        try {
            return of(Base64.getDecoder().decode(base64));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the plan's munge_key is not base64 of a key", null);
        }
    }

    @JsonValue
    String base64() {
        return Base64.getEncoder().encodeToString(key);
    }

    /** The key's bytes, for the one place that writes them to /etc/munge/munge.key. */
    public byte[] bytes() {
        return key.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MungeKey other && MessageDigest.isEqual(key, other.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return "MungeKey[" + key.length + " bytes, not shown]";
    }
}
