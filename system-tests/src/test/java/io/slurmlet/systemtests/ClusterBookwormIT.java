package io.slurmlet.systemtests;

/**
 * {@link ClusterIT}'s every cell again on bookworm (Debian 12, Slurm 22.05), the oldest Slurm
 * slurmlet runs. Failsafe runs it in a JVM of its own beside ClusterIT's trixie cluster; the two
 * clusters share nothing but the host's CPUs (their own folders, machines and network namespaces).
 * Alone: {@code -Dit.test=ClusterBookwormIT}; both: {@code -Dit.test='Cluster*IT'}.
 */
class ClusterBookwormIT extends ClusterIT {
}
