package io.slurmlet.model.plan;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file's text written into JSON once for every plan that carries it. The leader renders
 * slurm.conf, gres.conf and the like once for the cluster and 10,000 plans carry the same text:
 * escaping it for each plan was a fifth of the leader's CPU in a change that reaches every machine
 * (bench/README). Its quoted UTF-8 bytes are made once, kept by content (texts of 1 KiB or more,
 * up to {@link #MOST_CHARS} characters in all), and copied into each plan's
 * JSON, or, where the plan is written in pieces ({@link PlanJson}), are a piece of it. They are the bytes Jackson writes for the string itself (its {@code JsonStringEncoder},
 * with the same escapes), so a plan's JSON, and its digest, are what they were.
 */
final class SharedText {

    /** Shorter texts are written as they are: copying them costs what escaping them does. */
    static final int SHARED_FROM = 1024;
    /**
     * At most this many characters kept (with their bytes, about 8 MiB at most; the agents' own
     * plans go through it too): a few versions of a large cluster's files, slurm.conf being 11 KB at
     * 10,000 machines alike. Past it, every text is forgotten at once and kept again as written.
     */
    static final long MOST_CHARS = 2L << 20;

    private static final ConcurrentHashMap<String, SerializedString> KEPT = new ConcurrentHashMap<>();
    private static final AtomicLong CHARS = new AtomicLong();

    private SharedText() {}

    /** Writes {@code text} as a JSON string, its escaped bytes made once for every plan that carries it. */
    static void write(JsonGenerator gen, String text) throws IOException {
        if (text.length() < SHARED_FROM) {
            gen.writeString(text);
            return;
        }
        SerializedString quoted = KEPT.get(text);
        if (quoted == null) {
            quoted = surrogates(text) ? NOT_SHARED : new SerializedString(text);
            quoted.asQuotedUTF8(); // made now, once; SerializedString keeps it
            if (CHARS.addAndGet(text.length()) > MOST_CHARS) {
                KEPT.clear();
                CHARS.set(text.length());
            }
            SerializedString was = KEPT.putIfAbsent(text, quoted);
            quoted = was == null ? quoted : was;
        }
        if (quoted == NOT_SHARED) {
            gen.writeString(text);
        } else {
            PlanJson.writeQuoted(gen, quoted); // into a plan's pieces, the one array itself
        }
    }

    /**
     * A text with a character beyond the 16-bit range (an emoji): Jackson's byte generator writes each
     * half as an escape (\uD83D\uDE80) where its encoder writes the character's four UTF-8 bytes, so
     * such a text is written as it is, every time.
     */
    private static final SerializedString NOT_SHARED = new SerializedString("");

    private static boolean surrogates(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** How many texts are kept (tests). */
    static int kept() {
        return KEPT.size();
    }
}
