package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the storage step saw of a machine's shared storage, as its agent reports it: the leader's
 * previews run the step's diff against it. Files are named by the sha256 of their content ("" for
 * none), never by the content.
 *
 * @param mounts       slurmlet's mount units (and the one the plan wants, even without a file), by unit name
 * @param slurmdDropIn slurmd's wait for the storage, as sha256 of the drop-in; "" for none
 * @param exports      slurmlet's exports file for the kernel's NFS server, sha256; "" for none
 * @param ganeshaConf  ganesha.conf, sha256; "" for none
 * @param ganeshaOurs  whether that ganesha.conf is slurmlet's (a site's own is never removed)
 * @param kernelServer whether the kernel serves NFS itself (else nfs-ganesha exports)
 * @param ganeshaMajor nfs-ganesha's major version as dpkg has it; 0 when unknown
 * @param server       the NFS server's unit where this machine is to export: enabled, active; else null
 * @param mountedAt    what is mounted at the path the site mounts itself (source, type); "" for nothing
 * @param exported     the folder slurmlet's exports or ganesha.conf export; "" for none
 * @param jobs         the ids of the Slurm jobs with a step on this machine: no mount is removed or
 *                     moved under them
 */
public record StorageSeen(
        @JsonProperty("mounts") Map<String, Unit> mounts,
        @JsonProperty("slurmd_drop_in") String slurmdDropIn,
        @JsonProperty("exports") String exports,
        @JsonProperty("ganesha_conf") String ganeshaConf,
        @JsonProperty("ganesha_ours") boolean ganeshaOurs,
        @JsonProperty("kernel_server") boolean kernelServer,
        @JsonProperty("ganesha_major") int ganeshaMajor,
        @JsonProperty("server") Unit server,
        @JsonProperty("mounted_at") String mountedAt,
        @JsonProperty("exported") String exported,
        @JsonProperty("jobs") List<String> jobs) {

    private static final Pattern DIGEST = Pattern.compile("|[0-9a-f]{64}");
    private static final Pattern UNIT = Pattern.compile("[A-Za-z0-9:_.\\\\-]{1,255}\\.mount");

    public StorageSeen {
        mounts = Map.copyOf(mounts == null ? Map.of() : mounts);
        slurmdDropIn = digest("slurmd_drop_in", slurmdDropIn);
        exports = digest("exports", exports);
        ganeshaConf = digest("ganesha_conf", ganeshaConf);
        mountedAt = mountedAt == null ? "" : mountedAt;
        exported = exported == null ? "" : exported;
        jobs = List.copyOf(jobs == null ? List.of() : jobs);
        if (jobs.size() > 100_000 || jobs.stream().anyMatch(j -> !j.matches("[0-9]{1,12}"))) {
            throw new IllegalArgumentException("storage: jobs are job ids");
        }
        for (String unit : mounts.keySet()) {
            if (!UNIT.matcher(unit).matches()) {
                throw new IllegalArgumentException("storage: a mount unit's name, not " + unit);
            }
        }
        if (!printable(mountedAt, 4096) || !printable(exported, 4096)) {
            throw new IllegalArgumentException("storage: mounted_at and exported are one line of printable text");
        }
    }

    /** The same machine with {@code now} as the jobs that run on it (fresher than the pass that saw the rest). */
    public StorageSeen withJobs(List<String> now) {
        return new StorageSeen(
                mounts,
                slurmdDropIn,
                exports,
                ganeshaConf,
                ganeshaOurs,
                kernelServer,
                ganeshaMajor,
                server,
                mountedAt,
                exported,
                now);
    }

    /** Whether {@code text} is at most {@code max} characters of one line, no control character in it. */
    static boolean printable(String text, int max) {
        return text.length() <= max && text.chars().noneMatch(c -> c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0);
    }

    static String digest(String key, String value) {
        String v = value == null ? "" : value;
        if (!DIGEST.matcher(v).matches()) {
            throw new IllegalArgumentException("storage: " + key + " is a sha256 in hex or empty");
        }
        return v;
    }

    /**
     * A systemd unit as seen.
     *
     * @param file    sha256 of its unit file; "" for none (units slurmlet does not write)
     * @param enabled whether it is enabled
     * @param active  whether it is active (a mount unit: mounted)
     * @param what    a mount unit's What= (the export); "" for another unit
     * @param where   a mount unit's Where= (the folder); "" for another unit
     */
    public record Unit(
            @JsonProperty("file") String file,
            @JsonProperty("enabled") boolean enabled,
            @JsonProperty("active") boolean active,
            @JsonProperty("what") String what,
            @JsonProperty("where") String where) {
        public Unit {
            file = digest("file", file);
            what = what == null ? "" : what;
            where = where == null ? "" : where;
            if (!printable(what, 4096) || !printable(where, 4096)) {
                throw new IllegalArgumentException("storage: a unit's what and where are one line of printable text");
            }
        }

        public Unit(String file, boolean enabled, boolean active) {
            this(file, enabled, active, "", "");
        }
    }
}
