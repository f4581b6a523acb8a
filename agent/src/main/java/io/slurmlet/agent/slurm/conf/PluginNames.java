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
 * A site's plugin names against the plugins the controller has installed. A slurm.conf key that
 * loads plugins (its name ends in Type, Types, Plugin or Plugins: {@code SwitchType},
 * {@code TaskPlugin}, {@code CliFilterPlugins}) names each as {@code TYPE/NAME}, a list of them
 * comma-separated, and Slurm loads it from {@code TYPE_NAME.so} in its plugin folder, names as
 * written (the file system tells case). One that is not there stops the daemon or command that loads
 * it ("fatal: Can't find plugin for switch/bogus": slurmctld, slurmd and srun, measured on 24.11).
 * So a name whose kind the controller has plugins of, but not that one, is refused, with the ones it
 * has. Not checked: {@code TYPE/none} (24.11 takes {@code switch/none} with no switch_none.so: no
 * plugin), values of other keys ({@code AccountingStorageTRES=gres/fpga} names a resource, not a
 * plugin), a site that sets {@code PluginDir} (its folders are its own), and a controller whose agent
 * reported no plugins (an older agent, or no plugin folder found).
 */
public final class PluginNames {

    private static final Pattern NAMED = Pattern.compile("([A-Za-z][A-Za-z0-9_]*)/([A-Za-z0-9_]+)");
    private static final Pattern LOADS_PLUGINS = Pattern.compile("(?i).*(types?|plugins?)");

    private PluginNames() {}

    /** A problem for each key of {@code slurmConf} that names a plugin {@code controller} does not have. */
    public static List<Problem> missing(Map<String, String> slurmConf, NodeFacts controller, SlurmVersion version) {
        List<String> installed = controller.slurmPlugins();
        List<Problem> problems = new ArrayList<>();
        if (installed.isEmpty() || slurmConf.keySet().stream().anyMatch(k -> k.equalsIgnoreCase("PluginDir"))) {
            return problems;
        }
        for (var entry : slurmConf.entrySet()) {
            if (!LOADS_PLUGINS.matcher(entry.getKey()).matches()) {
                continue;
            }
            for (String item : entry.getValue().split(",")) {
                Matcher m = NAMED.matcher(item.strip());
                if (!m.matches() || m.group(2).equalsIgnoreCase("none")) {
                    continue;
                }
                String type = m.group(1).toLowerCase(Locale.ROOT);
                List<String> ofType = installed.stream()
                        .filter(p -> p.startsWith(type + "_"))
                        .map(p -> type + "/" + p.substring(type.length() + 1))
                        .toList();
                if (ofType.isEmpty() || installed.contains(m.group(1) + "_" + m.group(2))) {
                    continue; // a kind this Slurm has no plugin of is not known to be one
                }
                String key = entry.getKey();
                String hint = closest(m.group(), ofType)
                        .map(p -> " Did you mean " + p + "?")
                        .orElse("");
                problems.add(new Problem(
                        "slurm_conf." + key,
                        entry.getValue(),
                        ("%s names the plugin %s, which the controller %s "
                                        + "(Slurm %s) does not have (no %s_%s.so in its plugin folder; its %s plugins: %s): every daemon and command "
                                        + "that loads it would stop at it (\"fatal: Can't find plugin for %s\"; slurmctld, slurmd and srun do).%s Name "
                                        + "one it has, install the package that brings it on the controller and every node first, or clear the key "
                                        + "with slurm_conf.%s=")
                                .formatted(
                                        key,
                                        m.group(),
                                        controller.name(),
                                        version,
                                        m.group(1),
                                        m.group(2),
                                        type,
                                        String.join(", ", ofType),
                                        m.group(),
                                        hint,
                                        key)));
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
