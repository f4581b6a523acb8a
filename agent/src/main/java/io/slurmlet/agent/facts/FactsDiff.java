package io.slurmlet.agent.facts;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.NodeFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The facts step's pure half: what the leader holds of this machine (the facts it last took, or
 * those its newest plan says it was made from) against what the machine is now. Where they differ,
 * the facts are reported.
 */
public final class FactsDiff {

    private FactsDiff() {}

    /** Reports {@code facts} to the leader; {@code changes} says what the leader held before. */
    public record Report(NodeFacts facts, List<String> warnings, String changes) implements Action {

        public Report {
            warnings = List.copyOf(warnings);
        }

        @Override
        public String will() {
            return "report this machine's facts to the leader (" + changes + ")";
        }

        @Override
        public String did() {
            return describe(facts, warnings);
        }

        @Override
        public String failed(String error) {
            return "the facts (" + describe(facts, warnings) + ") did not reach the leader: " + error;
        }
    }

    /**
     * @param held what the leader holds of this machine; empty: it has said nothing of them on
     *             this link (a new link, a leader that just came back)
     * @param seen the machine now
     */
    public static Diff diff(Optional<NodeFacts> held, FactsCollector.Collected seen) {
        String settled = describe(seen.facts(), seen.warnings());
        if (held.isPresent() && held.get().equals(seen.facts())) {
            return Diff.of(List.of(), settled);
        }
        return Diff.of(
                List.of(new Report(
                        seen.facts(),
                        seen.warnings(),
                        held.map(h -> changes(h, seen.facts())).orElse("the leader has none from this agent yet"))),
                settled);
    }

    /** What differs, as {@code GPUs 4 → 3}; every fact a plan is made from is compared. */
    static String changes(NodeFacts held, NodeFacts now) {
        List<String> changes = new ArrayList<>();
        compare(changes, "name", held.name(), now.name());
        compare(changes, "address", held.address(), now.address());
        compare(changes, "CPUs", held.cpus(), now.cpus());
        compare(changes, "layout", layout(held), layout(now));
        compare(changes, "memory MiB", held.memoryMiB(), now.memoryMiB());
        compare(changes, "GPUs", gpus(held), gpus(now));
        compare(changes, "OS", held.os(), now.os());
        compare(changes, "Slurm", held.slurmVersion(), now.slurmVersion());
        compare(changes, "slurmctld's saved state", held.slurmctldState(), now.slurmctldState());
        compare(changes, "slurmctld upgrade candidate", held.slurmctldCandidate(), now.slurmctldCandidate());
        if (!held.slurmPlugins().equals(now.slurmPlugins())) {
            List<String> added = now.slurmPlugins().stream()
                    .filter(p -> !held.slurmPlugins().contains(p))
                    .toList();
            List<String> gone = held.slurmPlugins().stream()
                    .filter(p -> !now.slurmPlugins().contains(p))
                    .toList();
            List<String> which = new ArrayList<>();
            if (!added.isEmpty()) {
                which.add("new: " + few(added));
            }
            if (!gone.isEmpty()) {
                which.add("gone: " + few(gone));
            }
            if (!which.isEmpty()) {
                changes.add("%d Slurm plugins, the machine %d (%s)"
                        .formatted(
                                held.slurmPlugins().size(), now.slurmPlugins().size(), String.join("; ", which)));
            }
        }
        compare(
                changes,
                "enroot",
                held.containerTools().enroot(),
                now.containerTools().enroot());
        compare(changes, "pyxis", pyxis(held.containerTools()), pyxis(now.containerTools()));
        compare(
                changes,
                "nvidia-container-cli",
                held.containerTools().nvidiaCli(),
                now.containerTools().nvidiaCli());
        compare(
                changes,
                "slurmlet's prolog",
                held.containerTools().prolog() ? "in place" : "",
                now.containerTools().prolog() ? "in place" : "");
        return changes.isEmpty() ? "the leader's copy differs" : "the leader has " + String.join(", ", changes);
    }

    private static String pyxis(ContainerFacts c) {
        return c.pyxis().isEmpty()
                ? ""
                : "%s for Slurm %s (sha256 %s)"
                        .formatted(
                                c.pyxis(),
                                c.pyxisSlurm(),
                                c.pyxisSha256()
                                        .substring(
                                                0, Math.min(12, c.pyxisSha256().length())));
    }

    /** The first three names, and how many more. */
    private static String few(List<String> names) {
        return String.join(", ", names.subList(0, Math.min(3, names.size())))
                + (names.size() > 3 ? " and " + (names.size() - 3) + " more" : "");
    }

    private static void compare(List<String> changes, String what, Object held, Object now) {
        if (!held.equals(now)) {
            changes.add("%s %s, the machine %s".formatted(what, shown(held), shown(now)));
        }
    }

    private static String shown(Object value) {
        return value instanceof String s && s.isEmpty() ? "none" : value.toString();
    }

    private static String layout(NodeFacts f) {
        return "%d×%d×%d×%d".formatted(f.boards(), f.sockets(), f.coresPerSocket(), f.threadsPerCore());
    }

    private static String gpus(NodeFacts f) {
        return f.gpus().isEmpty()
                ? "none"
                : String.join(
                        " + ",
                        f.gpus().stream().map(g -> g.count() + " " + g.model()).toList());
    }

    /** The facts as status shows them: {@code 8 CPUs, 32000 MiB, 0 GPUs, debian 13, Slurm 24.11.5}. */
    static String describe(NodeFacts f, List<String> warnings) {
        String facts = "%d CPUs, %d MiB, %d GPUs, %s, Slurm %s"
                .formatted(
                        f.cpus(),
                        f.memoryMiB(),
                        f.gpuCount(),
                        f.os().isEmpty() ? "OS unknown" : f.os(),
                        f.slurmVersion().isEmpty() ? "not installed" : f.slurmVersion());
        return warnings.isEmpty() ? facts : facts + "; " + String.join("; ", warnings);
    }
}
