package io.slurmlet.ctl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Finds the leader and the token for it, each from the first place that names it:
 * <ol>
 * <li>the flags {@code --leader} and {@code --token-file};</li>
 * <li>the environment, {@code SLURMLET_LEADER} and {@code SLURMLET_TOKEN_FILE};</li>
 * <li>{@code /etc/slurmlet/ctl.yaml} (or the file {@code SLURMLET_CTL_CONFIG} names), keys
 * {@code leader} and {@code token_file};</li>
 * <li>the leader's root-only socket {@code unix:/run/slurmlet/leader.sock}, and
 * {@code /var/lib/slurmlet/admin.token} if this user can read it.</li>
 * </ol>
 * The config file is read only when a flag or the environment leaves something to find.
 */
public final class LeaderResolver {

    public static final String LEADER_ENV = "SLURMLET_LEADER";
    public static final String TOKEN_FILE_ENV = "SLURMLET_TOKEN_FILE";
    public static final String CONFIG_ENV = "SLURMLET_CTL_CONFIG";
    public static final Path DEFAULT_CONFIG = Path.of("/etc/slurmlet/ctl.yaml");
    public static final Path DEFAULT_TOKEN_FILE = Path.of("/var/lib/slurmlet/admin.token");
    public static final LeaderAddress DEFAULT_LEADER = LeaderAddress.unix(Path.of("/run/slurmlet/leader.sock"));

    /** The source of a value that no flag, variable or file named. */
    public static final String DEFAULT_SOURCE = "the default";

    /**
     * Where ctl will go.
     *
     * @param leader      the leader's address
     * @param leaderSource what named it: {@code --leader}, {@code SLURMLET_LEADER}, the config file's
     *                    path, or {@value #DEFAULT_SOURCE}
     * @param tokenFile   the token's file; empty when none is named and the default is unreadable
     * @param tokenSource what named the token's file, as for the leader
     */
    public record Resolved(LeaderAddress leader, String leaderSource, Optional<Path> tokenFile, String tokenSource) {

        /** " (from SLURMLET_LEADER)" where a variable or file named the leader; empty for a flag or default. */
        public String leaderOrigin() {
            return leaderSource.equals("--leader") || leaderSource.equals(DEFAULT_SOURCE)
                    ? ""
                    : " (from " + leaderSource + ")";
        }
    }

    private final Map<String, String> env;
    private final Path defaultTokenFile;
    private ConfigFile config;

    public LeaderResolver(Map<String, String> env) {
        this(env, DEFAULT_TOKEN_FILE);
    }

    /** For tests: {@code defaultTokenFile} stands in for {@link #DEFAULT_TOKEN_FILE}. */
    LeaderResolver(Map<String, String> env, Path defaultTokenFile) {
        this.env = env;
        this.defaultTokenFile = defaultTokenFile;
    }

    /**
     * @param flagLeader    {@code --leader}, or null
     * @param flagTokenFile {@code --token-file}, or null
     * @throws CtlException when a variable or the config file holds something ctl cannot use
     */
    public Resolved resolve(LeaderAddress flagLeader, Path flagTokenFile) {
        LeaderAddress leader;
        String leaderSource;
        if (flagLeader != null) {
            leader = flagLeader;
            leaderSource = "--leader";
        } else if (set(LEADER_ENV)) {
            leader = parse(env.get(LEADER_ENV), LEADER_ENV);
            leaderSource = LEADER_ENV;
        } else if (config().leader().isPresent()) {
            leader = parse(config().leader().get(), config().path() + " (leader)");
            leaderSource = config().path().toString();
        } else {
            leader = DEFAULT_LEADER;
            leaderSource = DEFAULT_SOURCE;
        }

        Optional<Path> tokenFile;
        String tokenSource;
        if (flagTokenFile != null) {
            tokenFile = Optional.of(flagTokenFile);
            tokenSource = "--token-file";
        } else if (set(TOKEN_FILE_ENV)) {
            tokenFile = Optional.of(Path.of(env.get(TOKEN_FILE_ENV).strip()));
            tokenSource = TOKEN_FILE_ENV;
        } else if (config().tokenFile().isPresent()) {
            tokenFile = Optional.of(Path.of(config().tokenFile().get()));
            tokenSource = config().path().toString();
        } else {
            tokenFile = Files.isReadable(defaultTokenFile) ? Optional.of(defaultTokenFile) : Optional.empty();
            tokenSource = DEFAULT_SOURCE;
        }
        return new Resolved(leader, leaderSource, tokenFile, tokenSource);
    }

    /**
     * Reads a token: the file's content without surrounding whitespace. The token itself never
     * appears in a message.
     *
     * @throws CtlException naming the file, where it was named, and what is wrong with it
     */
    public static String readToken(Path file, String source) {
        String named = DEFAULT_SOURCE.equals(source) ? "" : " (from " + source + ")";
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            throw new CtlException("cannot read the token file %s%s: no such file".formatted(file, named));
        } catch (AccessDeniedException e) {
            throw new CtlException(
                    ("cannot read the token file %s%s: permission denied (it is root-only: run ctl as root, "
                                    + "or copy the token to a file only you can read and name it with --token-file)")
                            .formatted(file, named));
        } catch (IOException e) {
            throw new CtlException("cannot read the token file %s%s: %s".formatted(file, named, IoErrors.describe(e)));
        }
        if (text.isEmpty()) {
            throw new CtlException("the token file %s%s is empty: it holds the leader's admin token (%s on the leader)"
                    .formatted(file, named, DEFAULT_TOKEN_FILE));
        }
        if (!text.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new CtlException(("the token file %s%s holds more than one token: a token is one word of printable "
                            + "ASCII; copy it from %s on the leader")
                    .formatted(file, named, DEFAULT_TOKEN_FILE));
        }
        return text;
    }

    private boolean set(String name) {
        String v = env.get(name);
        return v != null && !v.isBlank();
    }

    private static LeaderAddress parse(String text, String source) {
        try {
            return LeaderAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CtlException("the leader's address in " + source + " is unusable: " + e.getMessage());
        }
    }

    private ConfigFile config() {
        if (config == null) {
            config = set(CONFIG_ENV)
                    ? ConfigFile.read(Path.of(env.get(CONFIG_ENV).strip()), true)
                    : ConfigFile.read(DEFAULT_CONFIG, false);
        }
        return config;
    }

    /** {@code ctl.yaml}: {@code leader: URL} and {@code token_file: PATH}, both optional. */
    record ConfigFile(Path path, Optional<String> leader, Optional<String> tokenFile) {

        static ConfigFile read(Path path, boolean mustExist) {
            String text;
            try {
                text = Files.readString(path, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                if (!mustExist) {
                    return new ConfigFile(path, Optional.empty(), Optional.empty());
                }
                throw new CtlException(
                        "cannot read ctl's config %s (from %s): no such file".formatted(path, CONFIG_ENV));
            } catch (IOException e) {
                throw new CtlException("cannot read ctl's config %s: %s".formatted(path, IoErrors.describe(e)));
            }
            Object root;
            try {
                root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
            } catch (YAMLException e) {
                throw new CtlException("ctl's config %s is not valid YAML: %s"
                        .formatted(path, e.getMessage().strip()));
            }
            if (root == null) {
                return new ConfigFile(path, Optional.empty(), Optional.empty());
            }
            if (!(root instanceof Map<?, ?> map)) {
                throw new CtlException(
                        "ctl's config %s is not a YAML mapping: write\n  leader: http://HOST:%d\n  token_file: PATH"
                                .formatted(path, LeaderAddress.DEFAULT_PORT));
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String key = String.valueOf(e.getKey());
                if (!key.equals("leader") && !key.equals("token_file")) {
                    throw new CtlException("ctl's config %s has an unknown key '%s': the keys are leader and token_file"
                            .formatted(path, key));
                }
                if (e.getValue() == null) {
                    continue;
                }
                if (!(e.getValue() instanceof String s)) {
                    throw new CtlException("ctl's config %s: %s is not a string: write %s"
                            .formatted(
                                    path,
                                    key,
                                    key.equals("leader")
                                            ? "leader: http://HOST:" + LeaderAddress.DEFAULT_PORT
                                            : "token_file: /path/to/admin.token"));
                }
                if (!s.isBlank()) {
                    values.put(key, s.strip());
                }
            }
            return new ConfigFile(
                    path, Optional.ofNullable(values.get("leader")), Optional.ofNullable(values.get("token_file")));
        }
    }
}
