package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one machine holds and runs of Slurm itself: its files and the daemons that must run.
 *
 * @param files    Slurm's files, the same on every machine, each with its mode and owner; empty until
 *                 the controller has reported its Slurm version, which they are written for
 * @param services the systemd units that must be enabled and running: munged wherever Slurm runs,
 *                 slurmctld and slurmd where their files exist (slurmd is left out when its version
 *                 cannot talk to the controller's)
 * @param retired  Slurm's daemons of a role this machine no longer has in a cluster that runs (a
 *                 controller moved away, a node that left slurm.conf): where one still runs, or is
 *                 enabled, from slurmlet's files, it is stopped and disabled once no job needs it, so
 *                 that an old slurmctld never launches jobs beside the new one and an old slurmd never
 *                 comes back at boot. Empty (plans before format 5, a disabled cluster): whatever runs
 *                 is left running
 */
public record SlurmPlan(
        @JsonProperty("files") List<ManagedFile> files,
        @JsonProperty("services") List<String> services,
        @JsonProperty("retired") List<String> retired) {

    /** Nothing of Slurm's, and nothing stopped: a machine without a role in a cluster that does not run. */
    public static final SlurmPlan NONE = new SlurmPlan(List.of(), List.of(), List.of());

    public SlurmPlan {
        files = files == null ? List.of() : List.copyOf(files);
        if (files.stream().map(ManagedFile::path).distinct().count() != files.size()) {
            throw new IllegalArgumentException("a plan names each file once");
        }
        services = services == null ? List.of() : List.copyOf(services);
        retired = retired == null ? List.of() : List.copyOf(retired);
        if (!Set.of("slurmctld", "slurmd").containsAll(retired)) {
            throw new IllegalArgumentException("a plan retires only Slurm's daemons, slurmctld and slurmd: " + retired);
        }
        if (retired.stream().anyMatch(services::contains)) {
            throw new IllegalArgumentException("a plan retires no daemon it runs: " + retired + " " + services);
        }
    }

    /** Files and daemons, and nothing retired. */
    public SlurmPlan(List<ManagedFile> files, List<String> services) {
        this(files, services, List.of());
    }

    /** Nothing of Slurm's here, and {@code retired} stopped once no job needs them. */
    public static SlurmPlan retiring(List<String> retired) {
        return retired.isEmpty() ? NONE : new SlurmPlan(List.of(), List.of(), retired);
    }

    /** Configuration files by path, each {@link ManagedFile#config}: 0644, root's. */
    public static List<ManagedFile> configs(Map<String, String> files) {
        return files.entrySet().stream()
                .map(f -> ManagedFile.config(f.getKey(), f.getValue()))
                .toList();
    }

    /** Slurm's files' content by path, in the plan's order. */
    @JsonIgnore
    public Map<String, String> contents() {
        Map<String, String> contents = new LinkedHashMap<>();
        files.forEach(f -> contents.put(f.path(), f.content()));
        return Collections.unmodifiableMap(contents);
    }

    /** Whether {@code unit} must run here. */
    public boolean runs(String unit) {
        return services.contains(unit);
    }
}
