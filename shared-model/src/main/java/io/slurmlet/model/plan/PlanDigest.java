package io.slurmlet.model.plan;

import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The sha256 of a plan's JSON as the leader sends it. An agent polls with the digest of the plan it
 * holds: a leader that started since (and so numbers plans anew) gives a plan with that digest the
 * revision the agent holds, instead of sending it again under another.
 */
public final class PlanDigest {

    /** What a digest looks like: 64 lower-case hex digits. */
    public static final Pattern FORM = Pattern.compile("[0-9a-f]{64}");

    private PlanDigest() {}

    /** The JSON the leader sends for {@code plan} (the {@code plan} member of a poll's answer). */
    public static byte[] json(NodePlan plan) {
        try {
            return SettingsJson.STRICT.writeValueAsBytes(plan);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String of(byte[] planJson) {
        return of(List.of(planJson));
    }

    /** The digest of {@code parts}' bytes one after the other (a plan's JSON in pieces, {@link PlanJson}). */
    static String of(List<byte[]> parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            parts.forEach(sha::update);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String of(NodePlan plan) {
        return of(json(plan));
    }
}
