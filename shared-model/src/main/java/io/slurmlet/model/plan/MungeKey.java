package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * The cluster's munge key: the secret every Slurm machine shares. It reaches a machine only in
 * that machine's plan, over the agents' TLS channel; it never appears in a log, a status or an
 * error, so {@link #toString()} names nothing of it.
 */
public final class MungeKey {
    // A rotated key also says which rotation made it and when machines holding the one before switch to it
    // (ctl slurm munge-key rotate): neither is secret, and the plan carries them beside the key.

    /** munge's own key files are 1024 bytes of randomness. */
    public static final int BYTES = 1024;

    private final byte[] key;
    private final long rotation;
    private final Optional<Instant> switchAt;

    private MungeKey(byte[] key) {
        this(key, 0, Optional.empty());
    }

    private MungeKey(byte[] key, long rotation, Optional<Instant> switchAt) {
        if (rotation < 0) {
            throw new IllegalArgumentException("a munge key's rotation is 0 or more");
        }
        this.key = key.clone();
        this.rotation = rotation;
        this.switchAt = Objects.requireNonNull(switchAt);
    }

    /**
     * This key as made by rotation {@code rotation}: a machine that holds another key writes this one,
     * and restarts munged, at {@code switchAt} (at once where that has passed), as every machine does.
     */
    public MungeKey rotated(long rotation, Optional<Instant> switchAt) {
        return new MungeKey(key, rotation, switchAt);
    }

    /** Which rotation made this key: 0 for the cluster's first. */
    public long rotation() {
        return rotation;
    }

    /** When machines that hold the key before it switch to it together; empty for the cluster's first key. */
    public Optional<Instant> switchAt() {
        return switchAt;
    }

    /** Whether {@code other} holds the same secret, whatever rotation is said of either. */
    public boolean sameKey(byte[] other) {
        return MessageDigest.isEqual(key, other);
    }

    public static MungeKey random() {
        byte[] key = new byte[BYTES];
        new SecureRandom().nextBytes(key);
        return new MungeKey(key);
    }

    public static MungeKey of(byte[] key) {
        if (key.length < 32) {
            throw new IllegalArgumentException(
                    "a munge key of " + key.length + " bytes is too short: munge wants at least 32");
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
        return o instanceof MungeKey other
                && MessageDigest.isEqual(key, other.key)
                && rotation == other.rotation
                && switchAt.equals(other.switchAt);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + Long.hashCode(rotation);
    }

    @Override
    public String toString() {
        return "MungeKey[" + key.length + " bytes, not shown" + (rotation == 0 ? "" : ", rotation " + rotation)
                + switchAt.map(t -> ", switch at " + t).orElse("") + "]";
    }
}
