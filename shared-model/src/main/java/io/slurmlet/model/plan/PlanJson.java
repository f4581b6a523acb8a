package io.slurmlet.model.plan;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plan's JSON as the pieces it is made of, the large texts every plan carries alike (slurm.conf
 * and friends, {@link SharedText}) being one array for all plans rather than a copy in each. A change
 * that reaches 10,000 machines made 10,000 answers of 13 KB at once, 130 MB the leader's heap held
 * until each was sent (the collector stopped the leader twice for 0.4 s to make room: bench/README);
 * in pieces, each answer's own bytes are about 2 KB. The bytes, in order, are exactly
 * {@link PlanDigest#json}'s, and so is the digest.
 *
 * @param parts  the pieces in order; a shared piece is the same array in every plan: never written to
 * @param length their bytes in all
 */
public record PlanJson(List<byte[]> parts, int length) {

    public PlanJson {
        parts = List.copyOf(parts);
    }

    /** {@code plan}'s JSON, in pieces. */
    public static PlanJson of(NodePlan plan) {
        Pieces out = new Pieces();
        try (JsonGenerator gen = SettingsJson.STRICT.createGenerator(out)) {
            SettingsJson.STRICT.writeValue(gen, plan);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.done();
    }

    /** These pieces between {@code head} and {@code tail} (an answer's envelope around its plan). */
    public PlanJson between(byte[] head, byte[] tail) {
        List<byte[]> all = new ArrayList<>(parts.size() + 2);
        all.add(head);
        all.addAll(parts);
        all.add(tail);
        return new PlanJson(all, head.length + length + tail.length);
    }

    /** The sha256 of the bytes, as {@link PlanDigest#of(byte[])} gives it for them in one array. */
    public String digest() {
        return PlanDigest.of(parts);
    }

    /** The bytes in one array (a copy). */
    public byte[] bytes() {
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /**
     * Where a generator writes a plan: its own bytes gathered into pieces, and a shared text's quoted
     * bytes taken as a piece of their own ({@link #share}), not copied.
     */
    static final class Pieces extends OutputStream {

        private final List<byte[]> parts = new ArrayList<>();
        private byte[] own = new byte[512];
        private int used;
        private int length;

        @Override
        public void write(int b) {
            room(1);
            own[used++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            room(len);
            System.arraycopy(b, off, own, used, len);
            used += len;
        }

        /** {@code shared} as the next piece, kept as it is: the caller never changes it. */
        void share(byte[] shared) {
            cut();
            parts.add(shared);
            length += shared.length;
        }

        private void room(int more) {
            if (used + more > own.length) {
                own = Arrays.copyOf(own, Math.max(own.length * 2, used + more));
            }
        }

        private void cut() {
            if (used > 0) {
                parts.add(Arrays.copyOf(own, used));
                length += used;
                used = 0;
            }
        }

        PlanJson done() {
            cut();
            return new PlanJson(parts, length);
        }
    }

    /**
     * Writes {@code quoted} (a string's escaped UTF-8 bytes, without its quotes) as the next JSON
     * string value: shared as a piece where the generator writes into {@link Pieces}, else copied.
     * The separator before it is the generator's, as for any value.
     */
    static void writeQuoted(JsonGenerator gen, SerializedString text) throws IOException {
        if (!(gen.getOutputTarget() instanceof Pieces pieces)) {
            gen.writeString(text);
            return;
        }
        gen.writeRawValue("\""); // the separator the value needs, and its opening quote
        gen.flush();
        pieces.share(text.asQuotedUTF8());
        gen.writeRaw('"');
    }
}
