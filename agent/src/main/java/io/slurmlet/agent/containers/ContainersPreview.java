package io.slurmlet.agent.containers;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.ContainersSeen;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.NodePlan;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a dry run says the containers step would do on one machine: the step's own
 * {@link ContainersDiff#diff} against what it last saw there ({@link ContainersSeen}: the machine's
 * architecture and package format, what is installed and built, the files kept), which every Slurm
 * machine's agent reports with containers on or off: exactly what the step does. Only where the
 * machine has not reported it yet (it has just joined, or runs an agent older than the report) is
 * it what the machine's facts tell (enroot, pyxis and the Slurm it was built for,
 * nvidia-container-cli), a sentence each, in the step's order. Pure.
 */
public final class ContainersPreview {

    private ContainersPreview() {}

    /**
     * @param reported  what the machine's containers step last saw; null where it did not report it
     * @param facts     the machine's facts; null where it has not reported
     * @param artifacts the pinned files, as the plans carry them
     */
    public static Diff diff(
            NodePlan before, NodePlan after, ContainersSeen reported, NodeFacts facts, List<Artifact> artifacts) {
        boolean was = before != null && before.containers().install();
        ContainersPlan c = after.containers();
        if (!was && !c.install()) {
            return Diff.of(List.of(), "");
        }
        if (reported != null) {
            ContainersPlan wanted = c.install() ? new ContainersPlan(true, artifacts, c.sharedPath(), c.gpus()) : c;
            return ContainersDiff.diff(ContainersDiff.desired(wanted), seen(reported));
        }
        return Diff.of(fromFacts(was, after, facts, artifacts), "");
    }

    /** What the step reports of what it saw; null where it did not look (no Slurm role), or saw what no report can say. */
    static ContainersSeen report(ContainersDiff.Seen seen) {
        if (seen.arch().isEmpty()) {
            return null;
        }
        try {
            return new ContainersSeen(
                    seen.arch(),
                    seen.format(),
                    seen.enroot(),
                    seen.slurm(),
                    seen.headers(),
                    seen.pyxis()
                            .map(s -> new ContainersSeen.Pyxis(s.pyxis(), s.slurm(), s.sourceSha256(), s.sha256()))
                            .orElse(null),
                    seen.pyxisSha256(),
                    seen.files(),
                    seen.folders());
        } catch (IllegalArgumentException e) {
            return null; // the dry run then says what the facts tell
        }
    }

    /** What the step saw, as its report says it. */
    static ContainersDiff.Seen seen(ContainersSeen r) {
        return new ContainersDiff.Seen(
                r.arch(),
                r.format(),
                r.packages(),
                r.slurm(),
                r.headers(),
                Optional.ofNullable(r.pyxis())
                        .map(p -> new ContainersDiff.Stamp(p.version(), p.slurm(), p.sourceSha256(), p.sha256())),
                r.pyxisSha256(),
                r.files(),
                r.folders());
    }

    /** Where the machine has not reported what its step saw: what its facts tell of what the step would do. */
    private static List<Action> fromFacts(boolean was, NodePlan after, NodeFacts facts, List<Artifact> artifacts) {
        boolean will = after.containers().install();
        if (was == will) {
            return List.of();
        }
        if (!will) {
            return List.of(Action.sentence(
                    "containers off: nothing installed for them is removed (enroot, pyxis, slurmlet's prolog stay)"));
        }
        ContainerFacts has = facts == null || facts.containers() == null ? ContainerFacts.NONE : facts.containers();
        String slurm = facts == null ? "" : facts.slurmVersion();
        List<Action> actions = new ArrayList<>();
        actions.add(Action.sentence(
                "write enroot's settings (each user's folders under /run/enroot and /var/lib/enroot, the shared path in "
                        + "every container) and slurmlet's prolog"));
        pinned(artifacts, "enroot")
                .filter(v -> !v.equals(has.enroot()))
                .ifPresent(v -> actions.add(
                        Action.sentence("install enroot %s (enroot, enroot+caps)%s, %s, its sha256 checked first"
                                .formatted(
                                        v,
                                        has.enroot().isEmpty() ? "" : " in place of " + has.enroot(),
                                        from(artifacts, "enroot")))));
        pinned(artifacts, "pyxis")
                .filter(v -> !v.equals(has.pyxis())
                        || slurm.isEmpty()
                        || !ContainerFacts.release(has.pyxisSlurm()).equals(ContainerFacts.release(slurm)))
                .ifPresent(v -> actions.add(Action.sentence(
                        "build pyxis %s against this machine's Slurm%s (its headers), %s, and install it at %s"
                                .formatted(
                                        v,
                                        slurm.isEmpty() ? "" : " " + slurm,
                                        from(artifacts, "pyxis"),
                                        ContainerFacts.PYXIS_PLUGIN))));
        if (after.containers().gpus()) {
            pinned(artifacts, "libnvidia-container-tools")
                    .filter(v -> !v.equals(has.nvidiaCli()))
                    .ifPresent(v ->
                            actions.add(Action.sentence("install nvidia-container-cli %s (it has NVIDIA GPUs), %s"
                                    .formatted(v, from(artifacts, "libnvidia-container-tools")))));
        }
        if (artifacts.isEmpty()) {
            actions.add(
                    Action.sentence(
                            "nothing is installed yet: the leader has no pinned file to give (its table, mirror or imported files)"));
        }
        return actions;
    }

    private static Optional<String> pinned(List<Artifact> artifacts, String name) {
        return artifacts.stream()
                .filter(a -> a.name().equals(name))
                .map(Artifact::version)
                .findFirst();
    }

    /** Where a machine fetches the files of {@code name}: the leader, where it holds them, or the mirror. */
    private static String from(List<Artifact> artifacts, String name) {
        boolean leader = artifacts.stream()
                .filter(a -> a.name().equals(name))
                .anyMatch(a -> URI.create(a.url()).getRawPath().startsWith(ArtifactTable.LEADER_FILES));
        return leader ? "fetched from the leader" : "fetched from the mirror";
    }
}
