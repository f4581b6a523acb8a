package io.slurmlet.agent.containers;

/** The texts of the files the containers step keeps, as {@link ContainersDiff#desired} wants them. */
final class ContainersTexts {

    private ContainersTexts() {}

    static String tmpfiles() {
        StringBuilder text = new StringBuilder(
                "# written by slurmlet: the folders enroot and pyxis keep each user's folders in, root's and\n"
                        + "# 0755 so that no user can make or take another's; slurmlet's Slurm prolog makes each job's user theirs.\n");
        for (String folder : ContainersDiff.USER_FOLDERS) {
            text.append("d ").append(folder).append(" 0755 root root -\n");
        }
        return text.toString();
    }

    static String enrootConf() {
        return """
                # written by slurmlet: each user's enroot folders, under root-owned parents; slurmlet's Slurm prolog
                # makes them (0700, the job's user's) before every job, so no login session is needed.
                # pyxis drops a job's own ENROOT_*_PATH, so these hold for every job.
                ENROOT_RUNTIME_PATH /run/enroot/user-$(id -u)
                ENROOT_DATA_PATH /var/lib/enroot/data/user-$(id -u)
                ENROOT_CACHE_PATH /var/lib/enroot/cache/user-$(id -u)
                """;
    }

    static String mounts(String sharedPath) {
        return "# written by slurmlet: the shared storage, at the same path in every container\n" + sharedPath + " "
                + sharedPath + " none x-create=dir,bind,rw,nosuid,nodev,private 0 -1\n";
    }

    static String noGpus() {
        return "# written by slurmlet: this machine has no NVIDIA GPU, so containers are told there is none (a CUDA image's\n"
                + "# NVIDIA_VISIBLE_DEVICES=all would otherwise ask for nvidia-container-cli, which is not installed here)\n"
                + "NVIDIA_VISIBLE_DEVICES=void\n";
    }

    static String prolog() {
        return """
                #!/bin/sh
                # written by slurmlet: Slurm's prolog (slurm.conf Prolog=), run by slurmd as root before each job here.
                # The job's user gets their enroot folders, 0700 and theirs, under parents only root can write.
                # That part never fails: a prolog that fails drains the node and requeues the job. What it cannot do, it logs.
                # slurmd gives a prolog no search path.
                PATH=/usr/sbin:/usr/bin:/sbin:/bin
                export PATH
                uid=${SLURM_JOB_UID:-}
                case "$uid" in
                    ''|*[!0-9]*) logger -t slurmlet-prolog "job ${SLURM_JOB_ID:-?}: no user id from slurmd; no enroot folders made" || true ;;
                    *)
                        gid=${SLURM_JOB_GID:-$(id -g "$uid" 2>/dev/null)}
                        case "$gid" in ''|*[!0-9]*) gid=$uid ;; esac
                        for dir in "/run/enroot/user-$uid" "/var/lib/enroot/data/user-$uid" "/var/lib/enroot/cache/user-$uid"; do
                            if [ -L "$dir" ]; then
                                logger -t slurmlet-prolog "job ${SLURM_JOB_ID:-?}: $dir is a link; left as it is" || true
                            elif [ ! -e "$dir" ]; then
                                install -d -m 0700 -o "$uid" -g "$gid" "$dir" \\
                                    || logger -t slurmlet-prolog "job ${SLURM_JOB_ID:-?}: could not make $dir" || true
                            elif [ "$(stat -c %u "$dir" 2>/dev/null)" != "$uid" ]; then
                                logger -t slurmlet-prolog "job ${SLURM_JOB_ID:-?}: $dir belongs to another user; left as it is" || true
                            fi
                        done
                        ;;
                esac
                # Then the site's own Prolog (settings: slurm_conf.Prolog), which slurm.conf names in a comment where this
                # one takes its place: each program of it (comma-separated; a pattern runs each file it matches), in order,
                # as Slurm would run it; the first that fails ends the prolog with its status, as Slurm's would.
                if [ ! -r /etc/slurm/slurm.conf ]; then
                    logger -t slurmlet-prolog "job ${SLURM_JOB_ID:-?}: cannot read /etc/slurm/slurm.conf: no site Prolog run" || true
                    exit 0
                fi
                site=$(sed -n 's/^# slurmlet-site-prolog: //p' /etc/slurm/slurm.conf | head -n 1)
                [ -n "$site" ] || exit 0
                IFS=,
                for program in $site; do
                    unset IFS
                    case "$program" in
                        *[*?[]*) [ -e "$program" ] || continue ;;
                    esac
                    "$program" "$@" || exit $?
                done
                exit 0
                """;
    }
}
