package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.text.Text;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a machine holds for jobs in containers ({@code srun --container-image}): enroot installed from
 * its pinned packages, pyxis built from its pinned source against the machine's own Slurm, enroot
 * set up for many users, and the shared path inside every container. Whether Slurm loads pyxis is
 * not here: the leader writes that into plugstack.conf, in the slurm section, once every machine
 * reports pyxis.
 *
 * @param install    whether to install them; false: nothing is installed, and nothing installed
 *                   before is removed (containers off only takes pyxis out of plugstack.conf)
 * @param artifacts  the pinned files, for every architecture and package format of the release's
 *                   table: the machine takes those of its own
 * @param sharedPath the shared storage's path, bound into every container at the same path; empty:
 *                   none
 * @param gpus       whether the machine's facts show NVIDIA GPUs: else containers are told there are
 *                   none ({@code NVIDIA_VISIBLE_DEVICES=void}), so that a CUDA image's {@code all}
 *                   does not ask for a tool the machine lacks
 */
public record ContainersPlan(
        @JsonProperty("install") boolean install,
        @JsonProperty("artifacts") List<Artifact> artifacts,
        @JsonProperty("shared_path") String sharedPath,
        @JsonProperty("gpus") boolean gpus) {

    /** Nothing to install, nothing removed. */
    public static final ContainersPlan NONE = new ContainersPlan(false, List.of(), "", false);

    /** A path as an fstab field takes it: no space, tab, line break, quote or backslash can end the field. */
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._+@-]+)+");

    public ContainersPlan {
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
        sharedPath = sharedPath == null ? "" : sharedPath;
        if (!sharedPath.isEmpty() && !PATH.matcher(sharedPath).matches()) {
            throw new IllegalArgumentException(
                    "containers: shared_path is an absolute path of letters, digits and . _ + @ -, not "
                            + Text.quote(sharedPath));
        }
        if (!install && !artifacts.isEmpty()) {
            throw new IllegalArgumentException("containers: a plan that installs nothing names no artifact");
        }
    }

    /** The artifacts named {@code name} (one per architecture and format). */
    public List<Artifact> named(String name) {
        return artifacts.stream().filter(a -> a.name().equals(name)).toList();
    }
}
