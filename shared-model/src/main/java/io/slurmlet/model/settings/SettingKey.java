package io.slurmlet.model.settings;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every key an admin can set, as {@code ctl slurm set} spells it: the settings' JSON names, dotted
 * for {@code shared.*} and {@code experimental.*}. Knows how to read a value typed on a command line
 * and how to show the current one.
 */
public enum SettingKey {
    ENABLED("enabled", Kind.BOOLEAN, SlurmSettings::enabled),
    CLUSTER_NAME("cluster_name", Kind.TEXT, SlurmSettings::clusterName),
    CONTROLLER("controller", Kind.TEXT, SlurmSettings::controller),
    NODES("nodes", Kind.LIST, SlurmSettings::nodes),
    ALL_NODES("all_nodes", Kind.BOOLEAN, SlurmSettings::allNodes),
    LENT("lent", Kind.LIST, SlurmSettings::lent),
    PARTITION("partition", Kind.TEXT, SlurmSettings::partition),
    SHARED_PATH("shared.path", Kind.TEXT, s -> s.shared().path()),
    SHARED_NFS("shared.nfs", Kind.TEXT, s -> s.shared().nfs()),
    SHARED_SERVER("shared.server", Kind.TEXT, s -> s.shared().server()),
    USERS("users", Kind.TEXT, SlurmSettings::users),
    CONTAINERS("containers", Kind.BOOLEAN, SlurmSettings::containers),
    EXPERIMENTAL_ENABLE_ASYNC_REPLY(
            "experimental.enable_async_reply",
            Kind.BOOLEAN,
            s -> s.experimental().enableAsyncReply()),
    /** munge or slurm: how Slurm's daemons and commands prove who they are. */
    AUTH("auth", Kind.TEXT, SlurmSettings::authShown),
    /** slurm.conf lines of the site's own: set one as {@code slurm_conf.MaxJobCount=50000}. */
    SLURM_CONF("slurm_conf", Kind.MAP, SlurmSettings::slurmConf);

    /** Keys under slurm_conf are typed {@code slurm_conf.NAME}. */
    public static final String SLURM_CONF_PREFIX = "slurm_conf.";

    /** What a key's value is. */
    public enum Kind {
        BOOLEAN,
        TEXT,
        LIST,
        MAP
    }

    private final String key;
    private final Kind kind;
    private final Function<SlurmSettings, Object> getter;

    SettingKey(String key, Kind kind, Function<SlurmSettings, Object> getter) {
        this.key = key;
        this.kind = kind;
        this.getter = getter;
    }

    /** The key as typed, as {@code shared.path}. */
    public String key() {
        return key;
    }

    public Kind kind() {
        return kind;
    }

    /** The JSON path of the key: {@code ["shared", "path"]}. */
    public List<String> path() {
        return List.of(key.split("\\."));
    }

    /** The key's value in {@code settings}: a Boolean, a String or a List of Strings. */
    public Object valueIn(SlurmSettings settings) {
        return getter.apply(settings);
    }

    /** The key's value in {@code settings} as {@code ctl slurm set} would take it back. */
    public String format(SlurmSettings settings) {
        Object v = valueIn(settings);
        if (v instanceof Map<?, ?> map) {
            return String.join(
                    ",",
                    map.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .toList());
        }
        if (v instanceof List<?> list) {
            return String.join(",", list.stream().map(Object::toString).toList());
        }
        return String.valueOf(v);
    }

    /** Every key, as {@code enabled, cluster_name, …, slurm_conf.NAME}, for messages. */
    public static String all() {
        return String.join(
                ", ",
                Arrays.stream(values())
                        .map(k -> k.kind == Kind.MAP ? k.key + ".NAME" : k.key)
                        .toList());
    }

    /**
     * Every setting of {@code settings} as {@code ctl slurm set} would take it back, one entry per
     * key, and one per {@code slurm_conf.NAME}: what ctl shows and compares.
     */
    public static Map<String, String> rows(SlurmSettings settings) {
        Map<String, String> rows = new LinkedHashMap<>();
        for (SettingKey k : values()) {
            if (k.kind == Kind.MAP) {
                settings.slurmConf().forEach((name, value) -> rows.put(SLURM_CONF_PREFIX + name, value));
            } else {
                rows.put(k.key, k.format(settings));
            }
        }
        return rows;
    }

    public static Optional<SettingKey> of(String key) {
        return Arrays.stream(values()).filter(k -> k.key.equals(key)).findFirst();
    }

    /**
     * Reads a value typed as {@code KEY=VALUE}. An empty value clears the key (null: back to its
     * default). Lists are comma-separated. Refuses what the kind cannot take, saying what it takes.
     *
     * @return a Boolean, a String, a List of Strings, or null for "clear"
     * @throws IllegalArgumentException naming the key, the value and what to write instead
     */
    public Object parse(String raw) {
        if (raw.isEmpty()) {
            return null;
        }
        return switch (kind) {
            case TEXT, MAP -> raw;
            case LIST -> parseList(raw);
            case BOOLEAN -> parseBoolean(raw);
        };
    }

    private List<String> parseList(String raw) {
        List<String> items =
                Arrays.stream(raw.split(",", -1)).map(String::strip).toList();
        if (items.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException(
                    "%s=%s has an empty item: separate names with single commas, as %s=n1,n2".formatted(key, raw, key));
        }
        return items;
    }

    private Boolean parseBoolean(String raw) {
        return switch (raw.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> Boolean.TRUE;
            case "false", "no", "off", "0" -> Boolean.FALSE;
            default ->
                throw new IllegalArgumentException(
                        "%s=%s is not true or false: write %s=true or %s=false".formatted(key, raw, key, key));
        };
    }
}
