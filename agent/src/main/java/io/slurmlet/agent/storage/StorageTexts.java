package io.slurmlet.agent.storage;

import io.slurmlet.model.plan.StoragePlan;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The files the storage step writes, as text: a mount unit, slurmd's drop-in that waits for the
 * mount, the kernel server's exports line and nfs-ganesha's configuration, each marked as
 * slurmlet's; and systemd's name for a mount unit.
 */
public final class StorageTexts {

    static final String MARK = "# Written by slurmlet: the Slurm cluster's shared storage.";
    static final String KERNEL_SERVER = "nfs-server";
    static final String GANESHA = "nfs-ganesha";

    private StorageTexts() {}

    /** systemd's name for the mount unit of {@code path}, as {@code systemd-escape --path --suffix=mount} makes it. */
    public static String unitName(String path) {
        String p = path.replaceAll("/+", "/").replaceAll("^/|/$", "");
        if (p.isEmpty()) {
            return "-.mount";
        }
        StringBuilder out = new StringBuilder();
        byte[] bytes = p.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            char c = (char) (bytes[i] & 0xff);
            if (c == '/') {
                out.append('-');
            } else if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == ':'
                    || c == '_'
                    || (c == '.' && i > 0)) {
                out.append(c);
            } else {
                out.append(String.format("\\x%02x", bytes[i] & 0xff));
            }
        }
        return out + ".mount";
    }

    static String unit(StoragePlan.Mount m) {
        return unit(m.source(), m.path(), m.ours() ? "_netdev,vers=3" : "_netdev");
    }

    static String unit(String what, String where, String options) {
        return MARK + "\n"
                + "[Unit]\n"
                + "Description=slurmlet shared storage at " + where + "\n"
                + "Wants=network-online.target\n"
                + "After=network-online.target\n\n"
                + "[Mount]\n"
                + "What=" + what + "\n"
                + "Where=" + where + "\n"
                + "Type=nfs\n"
                + "Options=" + options + "\n"
                + "TimeoutSec=60\n\n"
                + "[Install]\n"
                + "WantedBy=remote-fs.target\n";
    }

    static String dropIn(String path) {
        return MARK + "\n[Unit]\nRequiresMountsFor=" + path + "\n";
    }

    static String exportsLine(String path, List<String> clients) {
        StringBuilder line = new StringBuilder(MARK + "\n" + path);
        for (String c : clients) {
            line.append(' ').append(c).append("(rw,sync,no_subtree_check,no_root_squash)");
        }
        return line.append('\n').toString();
    }

    /**
     * ganesha.conf exporting {@code path} to {@code clients}. nfs-ganesha 6 (trixie and newer) ends at
     * start when it cannot mark itself an I/O flusher (PR_SET_IO_FLUSHER needs CAP_SYS_RESOURCE,
     * which a container's root may lack): {@code allowFlusherFail} lets it go on with a warning
     * there; where the capability is held nothing changes. nfs-ganesha 4 (bookworm) neither sets the
     * flag nor knows the key, so it is written only for 6 and newer (system-tests/slurm/FINDINGS.md).
     */
    static String ganeshaConf(String path, List<String> clients, boolean allowFlusherFail) {
        return MARK.replace("storage.", "storage: nfs-ganesha exports shared.path to its machines only.") + "\n"
                + "NFS_CORE_PARAM {\n    Protocols = 3, 4;\n    Enable_NLM = false;\n    Enable_RQUOTA = false;\n"
                + (allowFlusherFail ? "    allow_set_io_flusher_fail = true;\n" : "") + "}\n"
                + "NFS_KRB5 {\n    Active_krb5 = false;\n}\n"
                + "NFSV4 {\n    Graceless = true;\n}\n"
                + "EXPORT {\n    Export_Id = 1;\n    Path = " + path + ";\n    Pseudo = " + path
                + ";\n    Protocols = 3, 4;\n"
                + "    Transports = TCP;\n    SecType = sys;\n    Squash = No_Root_Squash;\n    Access_Type = None;\n"
                + "    CLIENT {\n        Clients = " + String.join(", ", clients)
                + ";\n        Access_Type = RW;\n    }\n"
                + "    FSAL {\n        Name = VFS;\n    }\n}\n";
    }
}
