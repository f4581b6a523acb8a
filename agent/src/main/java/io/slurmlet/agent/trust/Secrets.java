package io.slurmlet.agent.trust;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Function;

/** What the leader keeps of a secret (a credential, a join token): its sha256, compared in constant time. */
final class Secrets {

    private Secrets() {}

    /** The sha256 of a secret (a credential, a join token), hex: what the leader keeps of it. */
    static String hash(String secret) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The one of {@code kept} whose sha256 ({@code hashOf}) is that of {@code presented}, compared
     * in constant time with every one; empty for none, or for nothing presented.
     */
    static <T> Optional<T> matching(String presented, Iterable<T> kept, Function<T, String> hashOf) {
        if (presented == null || presented.isBlank()) {
            return Optional.empty();
        }
        byte[] digest = hash(presented.strip()).getBytes(StandardCharsets.US_ASCII);
        Optional<T> found = Optional.empty();
        for (T k : kept) {
            if (MessageDigest.isEqual(digest, hashOf.apply(k).getBytes(StandardCharsets.US_ASCII))) {
                found = Optional.of(k);
            }
        }
        return found;
    }
}
