package io.slurmlet.agent.facts;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads {@code /etc/os-release} (the freedesktop format: {@code KEY=value} lines, values possibly
 * quoted) into the short name the facts carry, as {@code debian 12}, {@code ubuntu 24.04},
 * {@code rocky 9.4}.
 */
public final class OsRelease {

    private OsRelease() {}

    /** Every {@code KEY=value} of {@code text}, unquoted; comments and malformed lines skipped. */
    public static Map<String, String> parse(String text) {
        Map<String, String> kv = new LinkedHashMap<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            int eq = line.indexOf('=');
            if (line.startsWith("#") || eq <= 0) {
                continue;
            }
            kv.put(line.substring(0, eq).strip(), unquote(line.substring(eq + 1).strip()));
        }
        return kv;
    }

    /** {@code ID VERSION_ID}, as {@code debian 12}; just the ID without a version; empty without an ID. */
    public static String describe(String text) {
        Map<String, String> kv = parse(text);
        String id = kv.getOrDefault("ID", "").toLowerCase(Locale.ROOT);
        if (id.isEmpty()) {
            return "";
        }
        String version = kv.getOrDefault("VERSION_ID", "");
        return version.isEmpty() ? id : id + " " + version;
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && v.charAt(0) == '\'' && v.charAt(v.length() - 1) == '\'') {
            return v.substring(1, v.length() - 1);
        }
        if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
            StringBuilder sb = new StringBuilder();
            String inner = v.substring(1, v.length() - 1);
            for (int i = 0; i < inner.length(); i++) {
                char c = inner.charAt(i);
                if (c == '\\' && i + 1 < inner.length()) {
                    c = inner.charAt(++i);
                }
                sb.append(c);
            }
            return sb.toString();
        }
        return v;
    }
}
