package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one machine holds and runs of Slurm itself: its files and the daemons that must run.
 *
 * @param files    Slurm's files, the same on every machine, each with its mode and owner; empty until
 *                 the controller has reported its Slurm version, which they are written for
 * @param services the systemd units that must be enabled and running: munged wherever Slurm runs,
 *                 slurmctld and slurmd where their files exist (slurmd is left out when its version
 *                 cannot talk to the controller's)
 */
public record SlurmPlan(@JsonProperty("files") List<ManagedFile> files, @JsonProperty("services") List<String> services) {

    /** Nothing of Slurm's: a machine without a role. */
    public static final SlurmPlan NONE = new SlurmPlan(List.of(), List.of());

    public SlurmPlan {
        files = files == null ? List.of() : List.copyOf(files);
        if (files.stream().map(ManagedFile::path).distinct().count() != files.size()) {
            throw new IllegalArgumentException("a plan names each file once");
        }
        services = services == null ? List.of() : List.copyOf(services);
    }

    /** Configuration files by path, each {@link ManagedFile#config}: 0644, root's. */
    public static List<ManagedFile> configs(Map<String, String> files) {
        return files.entrySet().stream().map(f -> ManagedFile.config(f.getKey(), f.getValue())).toList();
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
