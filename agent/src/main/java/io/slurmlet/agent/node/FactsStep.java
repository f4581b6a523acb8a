package io.slurmlet.agent.node;

import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.agent.facts.FactsDiff;
import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.NodePlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The machine's facts (CPUs, memory, GPUs, OS, Slurm's version), reported to the leader where they
 * differ from what the leader holds. What it holds is its own word on this link: the facts it last
 * took, or, newer, those its latest plan says it was made from (a leader restored from an older
 * store, or one that lost a report, gets them again). It runs before every poll, with or without a
 * plan: the leader plans a machine from them. Unlike the other steps it keeps something between
 * passes: the leader's word, which no look at the machine can give.
 */
final class FactsStep extends Reconciler<Optional<NodeFacts>, FactsCollector.Collected> {

    static final String NAME = "facts";

    /** Reads the machine: {@link FactsCollector} on a machine, a fixed answer in tests. */
    interface Source {
        FactsCollector.Collected collect(String node);
    }

    private final Source source;
    private final String node;
    private Leader leader;
    private Optional<NodeFacts> held = Optional.empty();
    private String caveat = "";
    /** What kept the last report from the leader: thrown to the poller, which backs off (or, for a 401, joins again). */
    private IOException unreached;

    FactsStep(Source source, String node) {
        super(NAME, NodePlan::plannedFrom, FactsDiff::diff);
        this.source = source;
        this.node = node;
    }

    /**
     * Reads the facts and reports them to {@code leader} where it holds others.
     *
     * @throws IOException the leader could not be reached, or refused them for another reason than
     *                     its age ({@link LeaderLink.Refused}; a 401: the poller joins again). Nothing
     *                     is recorded then: the leader is away, not the machine broken, and the
     *                     poller applies no plan until the leader answers
     */
    Outcome report(Leader leader) throws IOException, InterruptedException {
        this.leader = leader;
        caveat = "";
        unreached = null;
        Outcome outcome = reconcile(held);
        if (unreached != null) {
            if (unreached.getCause() instanceof InterruptedException) {
                Thread.interrupted();
                throw new InterruptedException("interrupted while reporting the facts");
            }
            throw unreached;
        }
        return caveat.isEmpty()
                ? outcome
                : new Outcome(outcome.step(), outcome.kind(), outcome.detail() + "; " + caveat);
    }

    /** A plan the leader sent on this link: the facts it was made from are the leader's newest word (a plan of format 2 says none). */
    void planned(NodePlan plan) {
        plan.plannedFrom().ifPresent(facts -> held = Optional.of(facts));
    }

    /** A new link (a rejoin, a leader that forgot this machine): the facts are reported again. */
    void forget() {
        held = Optional.empty();
    }

    @Override
    public FactsCollector.Collected observe(Optional<NodeFacts> desired) {
        return source.collect(node);
    }

    @Override
    protected void act(Optional<NodeFacts> desired, Action action) throws IOException {
        NodeFacts facts = ((FactsDiff.Report) action).facts();
        try {
            send(facts);
        } catch (InterruptedException e) {
            unreached = new IOException("interrupted while reporting the facts", e);
            throw unreached;
        } catch (IOException e) {
            unreached = e;
            throw e;
        }
        held = Optional.of(facts);
    }

    /** A report changes nothing on the machine: what was collected before it still holds (a second look would run slurmd -C again). */
    @Override
    protected boolean looksAgainAfterActing() {
        return false;
    }

    /**
     * Reports {@code facts}; a leader older than a fact refuses its key ("unknown key"), and gets
     * the report again without it, so that it still takes the rest. Each fact is left out once, so
     * this ends.
     */
    private void send(NodeFacts facts) throws IOException, InterruptedException {
        NodeFacts sent = facts;
        List<String> unsaid = new ArrayList<>();
        while (true) {
            try {
                leader.reportFacts(sent);
                break;
            } catch (LeaderLink.Refused e) {
                String why = e.getMessage();
                if (e.status() == 400 && why.contains("unknown key \"containers\"") && sent.containers() != null) {
                    sent = sent.withContainers(null);
                    unsaid.add(
                            "takes no report of enroot and pyxis (upgrade the leader): it cannot have Slurm load pyxis");
                } else if (e.status() == 400
                        && why.contains("unknown key \"slurm_plugins\"")
                        && !sent.slurmPlugins().isEmpty()) {
                    sent = sent.withSlurmPlugins(List.of());
                    unsaid.add(
                            "takes no list of Slurm plugins (upgrade the leader): it cannot check a site's plugin names against "
                                    + "this machine's");
                } else if (e.status() == 400
                        && why.contains("unknown key \"slurmctld_")
                        && (sent.slurmctldState() != 0
                                || !sent.slurmctldCandidate().isEmpty())) {
                    sent = sent.withSlurmctldState(0).withSlurmctldCandidate("");
                    unsaid.add(
                            "takes no saved-state facts (upgrade the leader): it cannot tell whether this controller's slurmctld "
                                    + "could start");
                } else {
                    throw e;
                }
            }
        }
        if (!unsaid.isEmpty()) {
            caveat = "the leader is older than this agent and " + String.join("; and ", unsaid);
        }
    }
}
