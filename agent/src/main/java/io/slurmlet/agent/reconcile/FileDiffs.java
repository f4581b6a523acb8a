package io.slurmlet.agent.reconcile;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A file's change as a unified diff, as {@code diff -u} and {@code git diff} print it: what previews
 * show of a file a step writes. One preview's diffs are made once for a change that many machines
 * share (the same slurm.conf everywhere).
 */
public final class FileDiffs {

    /** Lines of context around each change. */
    public static final int CONTEXT = 3;

    private final Map<List<String>, String> made = new HashMap<>();

    /** {@link #unified}, made once per path, content before and after. */
    public String of(String path, String before, String after) {
        return made.computeIfAbsent(
                List.of(path, before == null ? "\0" : before, after), k -> unified(path, before, after));
    }

    /**
     * {@code before} → {@code after} with {@value #CONTEXT} lines of context, the paths as git writes
     * them ({@code a/etc/…}, {@code b/etc/…}; {@code /dev/null} for a file that is not there yet);
     * every line ends with a newline. Empty when they are equal.
     *
     * @param path   the file's absolute path
     * @param before its content now; null when it does not exist
     * @param after  its content as it would be
     */
    public static String unified(String path, String before, String after) {
        List<String> a = before == null ? List.of() : lines(before);
        List<String> b = lines(after);
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff(
                before == null ? "/dev/null" : "a" + path, "b" + path, a, DiffUtils.diff(a, b), CONTEXT);
        StringBuilder text = new StringBuilder();
        unified.forEach(line -> text.append(line).append('\n'));
        return text.toString();
    }

    /** A text's lines; a last line without its newline is marked as diff marks it. */
    private static List<String> lines(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int last = lines.size() - 1;
        if (lines.get(last).isEmpty()) {
            lines.remove(last);
        } else {
            lines.set(last, lines.get(last) + "\n\\ No newline at end of file");
        }
        return lines;
    }
}
