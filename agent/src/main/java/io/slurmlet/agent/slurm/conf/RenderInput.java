package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Everything Slurm's files are made from: the settings, what each node reported about its machine,
 * the controller's Slurm version, and where the daemons keep their files.
 *
 * @param settings          the cluster's settings
 * @param facts             node name → its facts; a node without facts yet is left out until it reports
 * @param controllerVersion the Slurm version slurmctld runs: the files are written for it
 * @param layout            paths and ports of the daemons
 * @param memoryClasses     the memory classes (MiB per CPU) slurm.conf had partitions for before: kept,
 *                          empty if need be, since removing a partition fails the jobs that name it
 * @param pyxis             whether Slurm loads pyxis (plugstack.conf) and runs slurmlet's prolog for it:
 *                          only once every Slurm machine reports both, built for its own Slurm
 */
public record RenderInput(
        SlurmSettings settings,
        Map<String, NodeFacts> facts,
        SlurmVersion controllerVersion,
        Layout layout,
        Set<Long> memoryClasses,
        boolean pyxis) {

    public RenderInput(
            SlurmSettings settings,
            Map<String, NodeFacts> facts,
            SlurmVersion controllerVersion,
            Layout layout,
            Set<Long> memoryClasses) {
        this(settings, facts, controllerVersion, layout, memoryClasses, false);
    }

    public RenderInput {
        facts = new TreeMap<>(facts);
        memoryClasses = Set.copyOf(memoryClasses);
    }

    public RenderInput(
            SlurmSettings settings, Map<String, NodeFacts> facts, SlurmVersion controllerVersion, Layout layout) {
        this(settings, facts, controllerVersion, layout, Set.of());
    }

    public RenderInput(SlurmSettings settings, Map<String, NodeFacts> facts, SlurmVersion controllerVersion) {
        this(settings, facts, controllerVersion, Layout.DEBIAN);
    }
}
