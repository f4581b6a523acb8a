package io.slurmlet.model.text;

import java.util.Optional;

/**
 * What a string crossing one of slurmlet's boundaries (settings, accounts, facts, join) may hold,
 * and how one is shown in an error. A value is refused where it enters when it holds what no file
 * slurmlet writes can carry as the person meant it, or what a terminal would show as something
 * else: a control character (line breaks and tabs included), a lone half of a UTF-16 surrogate
 * pair (stored as {@code ?} by any UTF-8 encoder: an acknowledged value altered), a line or
 * paragraph separator, a byte order mark, or a bidirectional control (text that reads in one
 * order and is stored in another).
 */
public final class Text {

    private Text() {}

    /** What is wrong with {@code value} as one line of text, as a phrase ("holds a line break at 4"); empty: nothing. */
    public static Optional<String> unsafe(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
                continue;
            }
            Optional<String> what = unsafeChar(c);
            if (what.isPresent()) {
                return Optional.of("holds %s at character %d".formatted(what.get(), i + 1));
            }
        }
        return Optional.empty();
    }

    private static Optional<String> unsafeChar(char c) {
        if (c == '\n' || c == '\r') {
            return Optional.of("a line break");
        }
        if (Character.isISOControl(c)) {
            return Optional.of("the control character U+%04X".formatted((int) c));
        }
        if (Character.isSurrogate(c)) {
            return Optional.of("half of a UTF-16 surrogate pair (U+%04X), which is not a character".formatted((int) c));
        }
        if (c == '\u2028' || c == '\u2029') {
            return Optional.of("a line or paragraph separator (U+%04X)".formatted((int) c));
        }
        if (c == '\ufeff' || c == '\ufffe' || c == '\uffff') {
            return Optional.of("U+%04X, which is not text".formatted((int) c));
        }
        if (c >= '\u202a' && c <= '\u202e'
                || c >= '\u2066' && c <= '\u2069'
                || c == '\u200e'
                || c == '\u200f'
                || c == '\u061c') {
            return Optional.of("a bidirectional control (U+%04X), which shows text in another order than it is stored"
                    .formatted((int) c));
        }
        return Optional.empty();
    }

    /** The longest text {@link #oneLine} keeps. */
    public static final int ONE_LINE_MAX = 4096;

    /**
     * {@code value} as one line a terminal shows as it is: line breaks as {@code " | "}, tabs as a
     * space, every other character {@link #unsafe} names as {@code \}{@code uXXXX}, at most
     * {@link #ONE_LINE_MAX} characters. For what a machine reports (a step's error, a drain reason),
     * which ctl prints: no agent can move an admin's cursor or hide text.
     */
    public static String oneLine(String value) {
        if (value == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(Math.min(value.length(), ONE_LINE_MAX));
        for (int i = 0; i < value.length() && b.length() < ONE_LINE_MAX; i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                b.append(c).append(value.charAt(++i));
            } else if (c == '\r' && i + 1 < value.length() && value.charAt(i + 1) == '\n') {
                continue;
            } else if (c == '\n' || c == '\r') {
                b.append(" | ");
            } else if (c == '\t') {
                b.append(' ');
            } else if (unsafeChar(c).isPresent()) {
                b.append("\\u%04x".formatted((int) c));
            } else {
                b.append(c);
            }
        }
        return b.length() > ONE_LINE_MAX ? b.substring(0, ONE_LINE_MAX) : b.toString();
    }

    /** Whether every character of {@code value} is printable ASCII or a space (0x20 to 0x7E). */
    public static boolean printableAscii(String value) {
        return value.chars().allMatch(c -> c >= 0x20 && c <= 0x7e);
    }

    /**
     * {@code value} in double quotes, as an error shows it: quotes and backslashes escaped, and
     * every character that {@link #unsafe} names, and every other one outside printable ASCII that
     * is not a letter, digit or mark, as {@code \}{@code uXXXX}, so a message is one line that
     * reads as what was sent.
     */
    public static String quote(String value) {
        StringBuilder b = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f || c > 0x7f && unsafeChar(c).isEmpty() && shown(c)) {
                b.append(c);
            } else {
                b.append("\\u%04x".formatted((int) c));
            }
        }
        return b.append('"').toString();
    }

    private static boolean shown(char c) {
        return Character.isLetterOrDigit(c)
                || Character.getType(c) == Character.NON_SPACING_MARK
                || Character.getType(c) == Character.COMBINING_SPACING_MARK;
    }
}
