package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A site's plugin names against the plugins the controller has installed. A slurm.conf value that
 * names a plugin ({@code SwitchType=switch/nvidia_imex}, each name of a list such as
 * {@code TaskPlugin=task/cgroup,task/affinity}) is loaded from {@code TYPE_NAME.so} in Slurm's
 * plugin folder, and one that is not there stops slurmctld, every slurmd and srun ("fatal: Can't
 * find plugin for switch/bogus", measured on 24.11). So a name whose kind the controller has
 * plugins of, but not that one, is refused, with the ones it has. {@code TYPE/none} is not
 * checked: 24.11 takes {@code switch/none} with no switch_none.so (it means no plugin). Where the
 * controller's agent reported no plugins (an older agent, or no plugin folder found), nothing is
 * checked.
 */
public final class PluginNames {

    private static final Pattern NAMED = Pattern.compile("([a-z][a-z0-9_]*)/([a-z0-9_]+)");

    private PluginNames() {
    }

    /** A problem for each key of {@code slurmConf} that names a plugin {@code controller} does not have. */
    public static List<Problem> missing(Map<String, String> slurmConf, NodeFacts controller, SlurmVersion version) {
        List<String> installed = controller.slurmPlugins();
        List<Problem> problems = new ArrayList<>();
        if (installed.isEmpty()) {
            return problems;
        }
        for (var entry : slurmConf.entrySet()) {
            for (String item : entry.getValue().split(",")) {
                Matcher m = NAMED.matcher(item.strip().toLowerCase(Locale.ROOT));
                if (!m.matches() || m.group(2).equals("none")) {
                    continue;
                }
                String type = m.group(1);
                List<String> ofType = installed.stream().filter(p -> p.startsWith(type + "_"))
                        .map(p -> type + "/" + p.substring(type.length() + 1)).toList();
                if (ofType.isEmpty() || ofType.contains(m.group())) {
                    continue; // not a kind of plugin this Slurm has: not a plugin name (or one kept elsewhere)
                }
                String key = entry.getKey();
                String hint = closest(m.group(), ofType).map(p -> " Did you mean " + p + "?").orElse("");
                problems.add(new Problem("slurm_conf." + key, entry.getValue(), ("%s names the plugin %s, which the controller %s "
                        + "(Slurm %s) does not have (no %s_%s.so in its plugin folder; its %s plugins: %s): slurmctld, every slurmd and "
                        + "srun would stop at it (\"fatal: Can't find plugin for %s\").%s Name one it has, install the package that "
                        + "brings it on every machine first, or clear the key with slurm_conf.%s=")
                        .formatted(key, m.group(), controller.name(), version, type, m.group(2), type, String.join(", ", ofType),
                                m.group(), hint, key)));
            }
        }
        return problems;
    }

    private static Optional<String> closest(String name, List<String> names) {
        Map<String, String> byLower = new TreeMap<>();
        names.forEach(n -> byLower.put(n, n));
        return KnownKeys.closest(name, byLower);
    }
}
