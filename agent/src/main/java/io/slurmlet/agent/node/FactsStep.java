package io.slurmlet.agent.node;

import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.model.facts.NodeFacts;

import java.io.IOException;

/**
 * The machine's facts (CPUs, memory, GPUs, OS, Slurm's version), reported to the leader when they
 * change. It runs before every poll, with or without a plan: the leader plans a machine from them.
 */
final class FactsStep {

    static final String NAME = "facts";

    /** Reads the machine: {@link FactsCollector} on a machine, a fixed answer in tests. */
    interface Source {
        FactsCollector.Collected collect(String node);
    }

    private final Source source;
    private final String node;
    private NodeFacts reported;

    FactsStep(Source source, String node) {
        this.source = source;
        this.node = node;
    }

    /** Reads the facts and reports them if the leader has not had them from this agent yet. */
    Outcome report(Leader leader) throws IOException, InterruptedException {
        FactsCollector.Collected collected = source.collect(node);
        String warnings = String.join("; ", collected.warnings());
        String detail = describe(collected.facts()) + (warnings.isEmpty() ? "" : "; " + warnings);
        if (collected.facts().equals(reported)) {
            return Outcome.unchanged(NAME, detail);
        }
        try {
            leader.reportFacts(collected.facts());
        } catch (LeaderLink.Refused e) {
            NodeFacts plain = collected.facts().withSlurmctldState(0).withSlurmctldCandidate("");
            if (e.status() != 400 || !e.getMessage().contains("unknown key \"slurmctld_") || plain.equals(collected.facts())) {
                throw e;
            }
            // A leader older than the saved-state facts: it gets the rest, and this machine says what it could not say.
            leader.reportFacts(plain);
            reported = collected.facts();
            return Outcome.changed(NAME, detail + "; the leader is older than this agent and takes no saved-state facts "
                    + "(upgrade the leader): it cannot tell whether this controller's slurmctld could start");
        }
        reported = collected.facts();
        return Outcome.changed(NAME, detail);
    }

    /** A new link (a rejoin, a leader that forgot this machine): the facts are reported again. */
    void forget() {
        reported = null;
    }

    private static String describe(NodeFacts f) {
        return "%d CPUs, %d MiB, %d GPUs, %s, Slurm %s".formatted(f.cpus(), f.memoryMiB(), f.gpuCount(),
                f.os().isEmpty() ? "OS unknown" : f.os(), f.slurmVersion().isEmpty() ? "not installed" : f.slurmVersion());
    }
}
