package io.slurmlet.agent.slurm;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Slurm's host list expressions, as slurm.conf and scontrol write them: {@code gpu[001-128]} for
 * gpu001 … gpu128, {@code n[1-3,7],login} for n1, n2, n3, n7 and login. Zero-padded numbers keep
 * their width ({@code gpu[001-010]}); unpadded ones do not ({@code n[8-10]}).
 */
public final class HostList {

    /** A name's trailing number, up to 18 digits (longer ones are left as plain names). */
    private static final Pattern NUMBERED = Pattern.compile("(.*?)(\\d{1,18})");

    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");

    private HostList() {}

    /** The shortest host list of {@code names} in Slurm's notation; each name once, in a stable order. */
    public static String compress(Collection<String> names) {
        // prefix -> width (0: unpadded) -> numbers
        Map<String, Map<Integer, TreeSet<Long>>> numbered = new TreeMap<>();
        TreeSet<String> plain = new TreeSet<>();
        for (String name : names) {
            Matcher m = NUMBERED.matcher(name);
            if (!m.matches()) {
                plain.add(name);
                continue;
            }
            String digits = m.group(2);
            int width = digits.length() > 1 && digits.charAt(0) == '0' ? digits.length() : 0;
            numbered.computeIfAbsent(m.group(1), p -> new TreeMap<>())
                    .computeIfAbsent(width, w -> new TreeSet<>())
                    .add(Long.parseLong(digits));
        }
        List<String> parts = new ArrayList<>();
        for (var byPrefix : numbered.entrySet()) {
            Map<Integer, TreeSet<Long>> widths = byPrefix.getValue();
            // An unpadded number as long as a padded width reads the same at that width: 100 in [001-100].
            TreeSet<Long> unpadded = widths.get(0);
            if (unpadded != null) {
                for (var it = unpadded.iterator(); it.hasNext(); ) {
                    long n = it.next();
                    TreeSet<Long> padded = widths.get(Long.toString(n).length());
                    if (padded != null && Long.toString(n).length() > 1) {
                        padded.add(n);
                        it.remove();
                    }
                }
                if (unpadded.isEmpty()) {
                    widths.remove(0);
                }
            }
            for (var byWidth : widths.entrySet()) {
                parts.add(group(byPrefix.getKey(), byWidth.getKey(), byWidth.getValue()));
            }
        }
        parts.addAll(plain);
        return String.join(",", parts);
    }

    private static String group(String prefix, int width, TreeSet<Long> numbers) {
        List<String> ranges = new ArrayList<>();
        Long start = null;
        long prev = 0;
        for (long n : numbers) {
            if (start != null && n == prev + 1) {
                prev = n;
                continue;
            }
            if (start != null) {
                ranges.add(range(start, prev, width));
            }
            start = n;
            prev = n;
        }
        ranges.add(range(start, prev, width));
        if (ranges.size() == 1 && numbers.size() == 1) {
            return prefix + ranges.get(0);
        }
        return prefix + "[" + String.join(",", ranges) + "]";
    }

    private static String range(long from, long to, int width) {
        return from == to ? pad(from, width) : pad(from, width) + "-" + pad(to, width);
    }

    private static String pad(long n, int width) {
        String s = Long.toString(n);
        return s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }

    /** Every name a host list expression stands for, in its order. */
    public static List<String> expand(String hostList) {
        List<String> names = new ArrayList<>();
        int i = 0;
        while (i < hostList.length()) {
            int comma = nextTopLevelComma(hostList, i);
            String item = hostList.substring(i, comma).strip();
            if (!item.isEmpty()) {
                expandItem(item, names);
            }
            i = comma + 1;
        }
        return names;
    }

    private static int nextTopLevelComma(String s, int from) {
        int depth = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                return i;
            }
        }
        return s.length();
    }

    private static void expandItem(String item, List<String> out) {
        int open = item.indexOf('[');
        if (open < 0) {
            out.add(item);
            return;
        }
        int close = item.indexOf(']', open);
        if (close < 0) {
            throw new IllegalArgumentException("host list " + item + " has [ without ]");
        }
        String prefix = item.substring(0, open);
        String suffix = item.substring(close + 1);
        for (String r : item.substring(open + 1, close).split(",")) {
            Matcher m = RANGE.matcher(r.strip());
            if (!m.matches()) {
                throw new IllegalArgumentException("host list " + item + " has a range that is not numbers: " + r);
            }
            String from = m.group(1);
            String to = m.group(2) == null ? from : m.group(2);
            int width = from.length() > 1 && from.charAt(0) == '0' ? from.length() : 0;
            List<String> tails = new ArrayList<>();
            if (suffix.isEmpty()) {
                tails.add("");
            } else {
                expandItem(suffix, tails);
            }
            for (long n = Long.parseLong(from); n <= Long.parseLong(to); n++) {
                String head = prefix + pad(n, width);
                tails.forEach(t -> out.add(head + t));
            }
        }
    }

    /** Whether {@code b} comes after {@code a} in a host list of one prefix: same prefix, a higher number. */
    public static boolean rises(String a, String b) {
        Matcher ma = NUMBERED.matcher(a);
        Matcher mb = NUMBERED.matcher(b);
        return ma.matches()
                && mb.matches()
                && ma.group(1).equals(mb.group(1))
                && Long.parseLong(mb.group(2)) > Long.parseLong(ma.group(2));
    }

    /** Orders names as Slurm lists them: by prefix, then by number. */
    public static final Comparator<String> NATURAL_ORDER = (a, b) -> {
        Matcher ma = NUMBERED.matcher(a);
        Matcher mb = NUMBERED.matcher(b);
        if (ma.matches() && mb.matches() && ma.group(1).equals(mb.group(1))) {
            int c = Long.compare(Long.parseLong(ma.group(2)), Long.parseLong(mb.group(2)));
            return c != 0 ? c : a.compareTo(b);
        }
        return a.compareTo(b);
    };
}
