package io.slurmlet.model.facts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/**
 * What a machine has for jobs in containers, as its agent reports it: what the leader waits for
 * before plugstack.conf names pyxis (a plugstack line naming a plugin one machine lacks fails every
 * job there). Each field is empty where the machine lacks it.
 *
 * @param enroot      the enroot version installed, as its package says (4.1.2-1)
 * @param pyxis       the pyxis version built here
 * @param pyxisSlurm  the Slurm version pyxis was built against (this machine's, at the time)
 * @param pyxisSha256 the sha256 of the plugin installed at {@link #PYXIS_PLUGIN}
 * @param prolog      whether slurmlet's Slurm prolog (which makes each job's user their enroot
 *                    folders) is in place
 * @param nvidiaCli   the version of nvidia-container-cli installed ({@code cli-version} of its
 *                    {@code --version}), which enroot's hook runs to give a container the job's GPUs;
 *                    needed only where the machine has NVIDIA GPUs
 */
public record ContainerFacts(
        @JsonProperty("enroot") String enroot,
        @JsonProperty("pyxis") String pyxis,
        @JsonProperty("pyxis_slurm") String pyxisSlurm,
        @JsonProperty("pyxis_sha256") String pyxisSha256,
        @JsonProperty("prolog") boolean prolog,

        @JsonProperty("nvidia_container_cli") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String nvidiaCli) {

    /** Where pyxis is installed on every machine (its upstream default), as plugstack.conf names it. */
    public static final String PYXIS_PLUGIN = "/usr/local/lib/slurm/spank_pyxis.so";
    /** slurmlet's Slurm prolog, as slurm.conf's Prolog names it. */
    public static final String PROLOG = "/usr/local/lib/slurmlet/prolog";

    public static final ContainerFacts NONE = new ContainerFacts("", "", "", "", false, "");

    public ContainerFacts {
        enroot = enroot == null ? "" : enroot;
        pyxis = pyxis == null ? "" : pyxis;
        pyxisSlurm = pyxisSlurm == null ? "" : pyxisSlurm;
        pyxisSha256 = pyxisSha256 == null ? "" : pyxisSha256;
        nvidiaCli = nvidiaCli == null ? "" : nvidiaCli;
    }

    /** Without nvidia-container-cli: a machine's tools where it has no GPU. */
    public ContainerFacts(String enroot, String pyxis, String pyxisSlurm, String pyxisSha256, boolean prolog) {
        this(enroot, pyxis, pyxisSlurm, pyxisSha256, prolog, "");
    }

    /**
     * Whether jobs can run in containers here with Slurm {@code slurmVersion}: enroot installed, pyxis
     * built against that very Slurm and installed, the prolog in place, and where the machine has
     * NVIDIA GPUs ({@code gpus}) nvidia-container-cli, without which a CUDA image's job fails there
     * ({@code Command not found: nvidia-container-cli}).
     */
    public boolean readyFor(String slurmVersion, boolean gpus) {
        return lacks(slurmVersion, gpus).isEmpty();
    }

    /**
     * A Slurm version's release, its first two numbers ({@code 24.11} of {@code 24.11.5}): what Slurm
     * checks a plugin against when it loads it, so a pyxis built against 24.11.5's headers loads into
     * 24.11.6.
     */
    public static String release(String version) {
        String[] parts = version.split("\\.");
        return parts.length < 2 ? version : parts[0] + "." + parts[1].replaceAll("[^0-9].*$", "");
    }

    /** What this machine still lacks for jobs in containers with Slurm {@code slurmVersion}, in words; empty: nothing. */
    public String lacks(String slurmVersion, boolean gpus) {
        List<String> lacks = new ArrayList<>();
        if (enroot.isEmpty()) {
            lacks.add("enroot");
        }
        if (pyxis.isEmpty() || pyxisSha256.isEmpty()) {
            lacks.add("pyxis");
        } else if (!release(pyxisSlurm).equals(release(slurmVersion))) {
            lacks.add("a pyxis built for its Slurm " + (slurmVersion.isEmpty() ? "(not installed)" : slurmVersion)
                    + " (it has one for " + pyxisSlurm + ")");
        }
        if (!prolog) {
            lacks.add("slurmlet's prolog");
        }
        if (gpus && nvidiaCli.isEmpty()) {
            lacks.add("nvidia-container-cli (it has NVIDIA GPUs)");
        }
        return String.join(", ", lacks);
    }
}
