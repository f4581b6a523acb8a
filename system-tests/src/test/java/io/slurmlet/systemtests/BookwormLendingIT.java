package io.slurmlet.systemtests;

/**
 * {@link ClusterLendingIT}'s cells on bookworm (Debian 12, Slurm 22.05), the oldest Slurm slurmlet
 * runs: part of bookworm's core, what differs by version (the reconfigure/restart table's rows, the
 * PAM path, lending, NFS, users). Alone: {@code -Dit.test=BookwormLendingIT}.
 */
class BookwormLendingIT extends ClusterLendingIT {}
