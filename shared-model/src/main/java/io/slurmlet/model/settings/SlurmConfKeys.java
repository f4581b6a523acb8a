package io.slurmlet.model.settings;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which slurm.conf keys a site may add through {@code slurm_conf}. slurm.conf's keys ignore case.
 */
public final class SlurmConfKeys {

    /**
     * Keys slurmlet writes and depends on: a site's value would fight the settings, the agents or
     * pam_slurm_adopt. Each maps to what to change instead.
     */
    private static final Map<String, String> OWNED = owned();

    /** Keys slurmlet writes a default for; a site's own value replaces that line. */
    public static final Set<String> DEFAULTED = Set.of("mailprog", "schedulertype", "returntoservice", "defmempercpu");

    private SlurmConfKeys() {}

    private static Map<String, String> owned() {
        Map<String, String> m = new TreeMap<>();
        m.put("ClusterName", "set cluster_name");
        for (String k :
                new String[] {"SlurmctldHost", "ControlMachine", "ControlAddr", "BackupController", "BackupAddr"}) {
            m.put(k, "set controller");
        }
        m.put("NodeName", "set nodes; each node's line comes from what its agent reports");
        m.put("PartitionName", "set partition");
        m.put("PrologFlags", "slurmlet sets Contain when users=slurmlet, for pam_slurm_adopt");
        m.put("SlurmctldParameters", "set experimental.enable_async_reply for the one slurmlet knows");
        m.put("GresTypes", "slurmlet names gpu when a node reports GPUs");
        for (String k : new String[] {"AuthType", "CredType", "AuthAltTypes", "AuthAltParameters"}) {
            m.put(k, "set auth (munge or slurm); slurmlet gives every Slurm machine the keys of either");
        }
        for (String k : new String[] {
            "SlurmUser",
            "SlurmctldPort",
            "SlurmdPort",
            "StateSaveLocation",
            "SlurmdSpoolDir",
            "SlurmctldPidFile",
            "SlurmdPidFile",
            "SlurmctldLogFile",
            "SlurmdLogFile",
            "SelectType",
            "SelectTypeParameters",
            "ProctrackType",
            "TaskPlugin",
            "DownNodes",
            "NodeSet",
            "FrontendName",
            "Include",
            "PlugStackConfig",
            "JobContainerType",
            "NamespaceType"
        }) {
            m.put(k, "slurmlet writes it, and its agents depend on it");
        }
        Map<String, String> lower = new TreeMap<>();
        m.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), k + ": " + v));
        return lower;
    }

    /** Why a site may not set {@code key}, naming what to do instead; empty when it may. */
    public static Optional<String> whyOwned(String key) {
        return Optional.ofNullable(OWNED.get(key.toLowerCase(Locale.ROOT)));
    }

    /** Whether a site's {@code slurm_conf} replaces slurmlet's default for {@code key}. */
    public static boolean overrides(Map<String, String> slurmConf, String key) {
        return slurmConf.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(key));
    }
}
