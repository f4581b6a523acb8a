package io.slurmlet.agent.slurm.conf;

/**
 * Where Slurm's daemons keep their files, and their ports. {@link #DEBIAN} is what Debian's and
 * Ubuntu's packages use; a test that runs several slurmd on one machine gives each its own paths
 * ({@code %n} is the node's name) and ports.
 *
 * @param stateSaveLocation slurmctld's state
 * @param slurmdSpoolDir    slurmd's spool; {@code %n} for the node name
 * @param slurmctldPidFile  slurmctld's pid file
 * @param slurmdPidFile     slurmd's pid file; {@code %n} for the node name
 * @param slurmctldLogFile  slurmctld's log; empty: none (syslog, or stderr in the foreground)
 * @param slurmdLogFile     slurmd's log; {@code %n} for the node name; empty: none
 * @param slurmctldPort     slurmctld's port
 * @param slurmdPort        slurmd's port; 0: each node gets its own, from 6818 up in name order
 */
public record Layout(
        String stateSaveLocation,
        String slurmdSpoolDir,
        String slurmctldPidFile,
        String slurmdPidFile,
        String slurmctldLogFile,
        String slurmdLogFile,
        int slurmctldPort,
        int slurmdPort) {

    public static final Layout DEBIAN = new Layout(
            "/var/lib/slurm/slurmctld",
            "/var/lib/slurm/slurmd",
            "/run/slurmctld.pid",
            "/run/slurmd.pid",
            "/var/log/slurm/slurmctld.log",
            "/var/log/slurm/slurmd.log",
            6817,
            6818);

    /**
     * Several slurmd on one machine, as tests run them: Debian's folders with a spool, pid file and
     * log per node, and a port per node.
     */
    public static final Layout ONE_MACHINE = new Layout(
            "/var/lib/slurm/slurmctld",
            "/var/lib/slurm/slurmd/%n",
            "/run/slurmctld.pid",
            "/run/slurmd-%n.pid",
            "/var/log/slurm/slurmctld.log",
            "/var/log/slurm/slurmd-%n.log",
            6817,
            0);
}
