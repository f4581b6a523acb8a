package io.slurmlet.model.settings;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where the Slurm cluster's shared files come from: the site's NFS export ({@code nfs}), an NFS
 * export slurmlet keeps on one of its nodes ({@code server}), or, with neither, a file system the
 * site mounts itself (Lustre, BeeGFS, GPFS), which slurmlet only looks for.
 *
 * @param path   where every machine of the Slurm cluster sees the shared files, as {@code /shared}:
 *               home directories, datasets, the jobs' output and checkpoints. Empty: there is no
 *               shared file system, and a batch job's output stays on the node it ran on.
 * @param nfs    the site's NFS export, {@code host:/path}, mounted at {@code path} on every machine
 *               of the Slurm cluster. Empty: the site has no export for slurmlet to mount.
 * @param server the slurmlet node (the controller or one of the nodes) that exports {@code path}
 *               over NFS to the others, for a site with no storage of its own. One machine: not
 *               highly available, and no faster than its disk and network. Empty: no node exports.
 */
public record SharedStorage(
        @JsonProperty("path") String path,
        @JsonProperty("nfs") String nfs,
        @JsonProperty("server") String server) {

    /** No shared file system. */
    public static final SharedStorage NONE = new SharedStorage("", "", "");

    public SharedStorage {
        path = path == null ? "" : path;
        nfs = nfs == null ? "" : nfs;
        server = server == null ? "" : server;
    }
}
