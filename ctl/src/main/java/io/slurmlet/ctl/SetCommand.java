package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.settings.SettingKey;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ctl slurm set KEY=VALUE…}: one merge patch with every assignment, written onto the
 * revision read so that what it prints as changed is what changed. With {@code --dry-run}, the same
 * patch is sent as a preview: what each machine would do, and nothing stored.
 */
@Command(
        name = "set",
        mixinStandardHelpOptions = true,
        modelTransformer = SetCommand.KeysInHelp.class,
        description = {
            "Changes settings, all in one write.",
            "KEY=VALUE sets a key, KEY= clears it back to its default. Lists are comma-separated."
        })
public class SetCommand implements Callable<Integer> {

    /** Lists every key with what it takes under the help, one per line, from {@link SettingKey}. */
    public static class KeysInHelp implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            int width = Arrays.stream(SettingKey.values())
                    .mapToInt(k -> k.key().length() + 5)
                    .max()
                    .orElse(0);
            List<String> footer = new ArrayList<>(List.of("", "Keys:"));
            for (SettingKey key : SettingKey.values()) {
                String takes = switch (key.kind()) {
                    case BOOLEAN -> "true or false";
                    case TEXT -> "text";
                    case LIST -> "names, comma-separated";
                    case MAP -> "a slurm.conf line of the site's own: slurm_conf.KillWait=60";
                };
                footer.add(("  %-" + width + "s  %s")
                        .formatted(key.kind() == SettingKey.Kind.MAP ? key.key() + ".NAME" : key.key(), takes));
            }
            footer.addAll(List.of(
                    "",
                    "Examples:",
                    "  ctl slurm set enabled=true controller=head1 nodes=gpu001,gpu002",
                    "  ctl slurm set partition=batch --dry-run",
                    "  ctl slurm set shared.nfs=nfs1:/export/shared shared.path=/shared",
                    "  ctl slurm set shared.server=",
                    "  ctl slurm set slurm_conf.MaxJobCount=50000"));
            spec.usageMessage().footer(footer.toArray(String[]::new));
            return spec;
        }
    }

    @Spec
    CommandSpec spec;

    @Parameters(
            arity = "1..*",
            paramLabel = "KEY=VALUE",
            completionCandidates = SettingKeyCandidates.class,
            description = "A key (below) and its value.")
    List<String> assignments;

    @Option(
            names = "--dry-run",
            description = "Shows what each machine would do (diffs of its files, daemons "
                    + "started, reconfigured or restarted), and stores nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        Map<String, Object> values = parse(assignments);
        ObjectNode patch = patch(values);
        try (Leader leader = session.connect()) {
            if (dryRun) {
                return preview(session, leader, patch);
            }
            Leader.Change change = leader.change(
                    read -> changes(read.tree().get("settings"), patch) ? Optional.of(patch) : Optional.empty());
            SettingsDocument before = change.before().value();
            PrintWriter out = session.out();
            if (change.after().isEmpty()) {
                if (session.json()) {
                    session.printJson(change.before().body());
                } else {
                    out.println("nothing to change: the settings are already so (revision %d)"
                            .formatted(before.revision()));
                }
                return 0;
            }
            Leader.Answer<SettingsDocument> after = change.after().get();
            if (session.json()) {
                session.printJson(after.body());
                return 0;
            }
            out.println("revision %d (was %d)".formatted(after.value().revision(), before.revision()));
            keysTable(before.settings(), after.value().settings()).print(out);
            return 0;
        }
    }

    /** The dry run: the keys that would change, then what each machine would do. */
    private static int preview(Session session, Leader leader, ObjectNode patch) {
        Leader.Preview p = leader.preview(read -> patch);
        if (session.json()) {
            session.printJson(p.preview().body());
            return 0;
        }
        PrintWriter out = session.out();
        SettingsPreview preview = p.preview().value();
        Table keys = keysTable(p.before().value().settings(), preview.settings());
        if (keys.isEmpty()) {
            out.println("the settings are already so (revision %d)".formatted(preview.revision()));
        } else {
            out.println("would change revision %d:".formatted(preview.revision()));
            keys.print(out);
        }
        out.println();
        DryRun.print(out, preview);
        return 0;
    }

    /** A row per key whose value differs: KEY  BEFORE  ->  AFTER. */
    private static Table keysTable(SlurmSettings before, SlurmSettings after) {
        Table table = new Table();
        Map<String, String> was = SettingKey.rows(before);
        Map<String, String> now = SettingKey.rows(after);
        Set<String> keys = new LinkedHashSet<>(was.keySet());
        keys.addAll(now.keySet());
        for (String key : keys) {
            String a = was.getOrDefault(key, "");
            String b = now.getOrDefault(key, "");
            if (!a.equals(b)) {
                table.row(key, Table.shown(a), "->", Table.shown(b));
            }
        }
        return table;
    }

    /**
     * Reads every KEY=VALUE into the merge patch's values, by dotted path; refuses the whole command
     * for one bad assignment.
     */
    private Map<String, Object> parse(List<String> given) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (String assignment : given) {
            int eq = assignment.indexOf('=');
            String name = eq < 0 ? assignment : assignment.substring(0, eq);
            SettingKey key = keyOf(name);
            if (eq < 0) {
                throw new ParameterException(
                        spec.commandLine(),
                        "'%s' has no value: write %s=VALUE, or %s= to clear it back to its default"
                                .formatted(name, name, name));
            }
            if (values.containsKey(name)) {
                throw new ParameterException(
                        spec.commandLine(), "%s is given twice: give each key once".formatted(name));
            }
            try {
                values.put(name, key.parse(assignment.substring(eq + 1)));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        return values;
    }

    /** The key typed: one of SettingKey's, or slurm_conf.NAME for a slurm.conf line of the site's own. */
    private SettingKey keyOf(String name) {
        if (name.startsWith(SettingKey.SLURM_CONF_PREFIX)) {
            if (name.length() == SettingKey.SLURM_CONF_PREFIX.length()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "slurm_conf. needs a slurm.conf key after it, as slurm_conf.MaxJobCount=50000");
            }
            return SettingKey.SLURM_CONF;
        }
        return SettingKey.of(name).filter(k -> k.kind() != SettingKey.Kind.MAP).orElseThrow(() -> unknownKey(name));
    }

    /** The merge patch: dotted keys as nested objects, null for a cleared key. */
    static ObjectNode patch(Map<String, Object> values) {
        ObjectNode patch = Leader.JSON.createObjectNode();
        values.forEach((key, value) -> {
            ObjectNode parent = patch;
            List<String> path = key.startsWith(SettingKey.SLURM_CONF_PREFIX)
                    ? List.of("slurm_conf", key.substring(SettingKey.SLURM_CONF_PREFIX.length()))
                    : List.of(key.split("\\."));
            for (String name : path.subList(0, path.size() - 1)) {
                JsonNode child = parent.get(name);
                parent = child instanceof ObjectNode o ? o : parent.putObject(name);
            }
            String name = path.get(path.size() - 1);
            if (value == null) {
                parent.putNull(name);
            } else if (value instanceof Boolean b) {
                parent.put(name, b);
            } else if (value instanceof List<?> list) {
                ArrayNode array = parent.putArray(name);
                list.forEach(item -> array.add(item.toString()));
            } else {
                parent.put(name, value.toString());
            }
        });
        return patch;
    }

    /** Whether {@code patch} would change any key of the settings read. */
    private static boolean changes(JsonNode settings, ObjectNode patch) {
        SlurmSettings before;
        SlurmSettings after;
        try {
            before = Leader.JSON.treeToValue(settings, SlurmSettings.class);
            after = Leader.JSON.treeToValue(SettingsJson.mergePatch(settings, patch), SlurmSettings.class);
        } catch (Exception e) {
            return true; // Let the leader judge what ctl cannot.
        }
        return !SettingKey.rows(before).equals(SettingKey.rows(after));
    }

    private ParameterException unknownKey(String typed) {
        String n = typed.strip().toLowerCase(Locale.ROOT).replace('-', '_');
        List<String> under = Arrays.stream(SettingKey.values())
                .map(SettingKey::key)
                .filter(k -> k.startsWith(n + "."))
                .toList();
        String hint;
        if (!under.isEmpty()) {
            hint = "'%s' is not a key itself: the keys under it are %s".formatted(typed, String.join(", ", under));
        } else {
            hint = nearest(n)
                    .map(k -> "unknown key '%s': did you mean %s?".formatted(typed, k.key()))
                    .orElse("unknown key '%s'".formatted(typed));
        }
        return new ParameterException(
                spec.commandLine(),
                hint + "\nThe keys: " + SettingKey.all() + " ('ctl slurm show' shows their values).");
    }

    /** The key {@code n} is most likely a misspelling of: same but for case or dashes, its last part, or a near miss. */
    static Optional<SettingKey> nearest(String n) {
        List<SettingKey> keys = Arrays.asList(SettingKey.values());
        Optional<SettingKey> same = keys.stream().filter(k -> k.key().equals(n)).findFirst();
        if (same.isPresent()) {
            return same;
        }
        List<SettingKey> tail =
                keys.stream().filter(k -> k.key().endsWith("." + n)).toList();
        if (tail.size() == 1) {
            return Optional.of(tail.get(0));
        }
        List<SettingKey> prefix = keys.stream()
                .filter(k -> n.length() >= 3 && k.key().startsWith(n))
                .toList();
        if (prefix.size() == 1) {
            return Optional.of(prefix.get(0));
        }
        return keys.stream()
                .min(Comparator.comparingInt(k -> distance(n, k.key())))
                .filter(k -> distance(n, k.key()) <= Math.max(1, Math.min(3, n.length() / 3)));
    }

    /** Levenshtein distance, with a swap of two neighbours counted as one edit. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
