package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.settings.Problem;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The slurm.conf keys each Slurm release knows, from its slurm.conf(5) (resources {@code
 * /slurm/keys/RELEASE.txt}, made by {@code dev/slurm-conf-keys} from Debian's packages): a key
 * a release does not know stops slurmctld, every slurmd and every Slurm command ("Parsing error at
 * unrecognized key"), so a site's {@code slurm_conf} addition it does not list is refused, with the
 * closest key it does. Releases without a list (those Debian does not ship) are not checked.
 */
public final class KnownKeys {

    private static final Map<String, Optional<Map<String, String>>> LOADED = new ConcurrentHashMap<>();

    private KnownKeys() {}

    /** The release's keys, lower case → as the man page spells them; empty for a release without a list. */
    static Optional<Map<String, String>> of(String release) {
        return LOADED.computeIfAbsent(release, KnownKeys::load);
    }

    private static Optional<Map<String, String>> load(String release) {
        try (InputStream in = KnownKeys.class.getResourceAsStream("/slurm/keys/" + release + ".txt")) {
            if (in == null) {
                return Optional.empty();
            }
            Map<String, String> keys = new TreeMap<>();
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .forEach(k -> keys.put(k.strip().toLowerCase(Locale.ROOT), k.strip()));
            return Optional.of(Collections.unmodifiableMap(keys));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the slurm.conf keys of Slurm " + release, e);
        }
    }

    /**
     * A problem for each key of {@code slurmConf} that {@code version}'s release does not know.
     *
     * @param controller the controller, named in the problem
     */
    public static List<Problem> unknown(Map<String, String> slurmConf, SlurmVersion version, String controller) {
        Optional<Map<String, String>> known = of(version.release());
        List<Problem> problems = new ArrayList<>();
        if (known.isEmpty()) {
            return problems;
        }
        for (var entry : slurmConf.entrySet()) {
            String key = entry.getKey();
            if (entry.getValue().isEmpty() || known.get().containsKey(key.toLowerCase(Locale.ROOT))) {
                continue;
            }
            String hint = closest(key, known.get())
                    .map(k -> "; did you mean " + k + "?")
                    .orElse("");
            problems.add(new Problem(
                    "slurm_conf." + key,
                    entry.getValue(),
                    ("%s is not a slurm.conf key of Slurm %s, which the "
                                    + "controller %s runs: slurmctld, every slurmd and every Slurm command would stop at it (\"Parsing error at "
                                    + "unrecognized key\")%s; clear it with slurm_conf.%s= (the keys are those of slurm.conf(5) for %s)")
                            .formatted(key, version.release(), controller, hint, key, version.release())));
        }
        return problems;
    }

    /** The known key nearest {@code key} by edit distance (ignoring case), if it is near enough to be a slip. */
    static Optional<String> closest(String key, Map<String, String> known) {
        String k = key.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (var candidate : known.entrySet()) {
            int d = distance(k, candidate.getKey());
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate.getValue();
            }
        }
        return best != null && bestDistance <= Math.max(2, k.length() / 3) ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(
                        Math.min(cur[j - 1] + 1, prev[j] + 1),
                        prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
