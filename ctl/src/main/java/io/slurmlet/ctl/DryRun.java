package io.slurmlet.ctl;

import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code --dry-run} prints of the leader's preview, for a person deciding whether to make the
 * change: a line per daemon that would be started, reconfigured or restarted on each machine, with
 * why; then each file change once, under every machine it would happen on (Slurm's files are the
 * same everywhere, so a diff is printed once, not once per machine); and that nothing was stored.
 */
final class DryRun {

    static final String NOTHING_STORED = "nothing was stored (dry run)";
    static final String NO_MACHINE = "no machine would change";

    private DryRun() {}

    static void print(PrintWriter out, SettingsPreview preview) {
        if (preview.nodes().isEmpty()) {
            out.println(NO_MACHINE);
        }
        Map<List<Object>, List<String>> files = new LinkedHashMap<>();
        for (NodeChange n : preview.nodes()) {
            if (!n.rolesBefore().equals(n.rolesAfter())) {
                out.println("%s: roles %s -> %s%s"
                        .formatted(
                                n.node(),
                                roles(n.rolesBefore()),
                                roles(n.rolesAfter()),
                                n.rolesAfter().isEmpty()
                                        ? " (its Slurm files stay; slurmlet stops none of its Slurm daemons itself)"
                                        : ""));
            }
            for (DaemonChange d : n.daemons()) {
                out.println("%s: %s %s (%s)"
                        .formatted(n.node(), d.action().name().toLowerCase(Locale.ROOT), d.unit(), d.why()));
            }
            for (String action : n.actions()) {
                out.println("%s: %s".formatted(n.node(), Text.oneLine(action)));
            }
            for (FileChange f : n.files()) {
                List<Object> key = new ArrayList<>();
                key.add(f.path());
                key.add(f.change());
                key.add(f.diff() == null ? "" : f.diff());
                files.computeIfAbsent(key, k -> new ArrayList<>()).add(n.node());
            }
        }
        for (var group : files.entrySet()) {
            String path = (String) group.getKey().get(0);
            String change = group.getKey().get(1).toString().toLowerCase(Locale.ROOT);
            String diff = (String) group.getKey().get(2);
            out.println();
            out.println("%s: %s %s%s"
                    .formatted(
                            String.join(", ", group.getValue()),
                            change,
                            path,
                            diff.isEmpty() ? " (its content is not shown)" : ""));
            out.print(diff);
        }
        if (!preview.problems().isEmpty()) {
            out.println();
            out.println("problems:");
            preview.problems().stream().map(Problem::shown).forEach(p -> out.println("  " + p));
        }
        if (!preview.notes().isEmpty()) {
            out.println();
            out.println("notes:");
            preview.notes().forEach(n -> out.println("  " + n));
        }
        if (!files.isEmpty()
                || !preview.problems().isEmpty()
                || !preview.notes().isEmpty()) {
            out.println();
        }
        out.println(NOTHING_STORED);
        out.flush();
    }

    private static String roles(List<String> roles) {
        return roles.isEmpty() ? "none" : String.join(",", roles);
    }
}
