package io.slurmlet.agent.node;

import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.facts.NodeFacts;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Facts reported to a leader older than this agent: what it cannot read is left out, the rest still reaches it. */
class FactsStepTest {

    static final NodeFacts CONTROLLER = new NodeFacts("n0", "", 8, 1, 1, 8, 1, 32_000, List.of(), "debian 13", "24.11.5")
            .withSlurmctldState(42 << 8);

    /** A leader that refuses, as one before the saved-state facts does, every report that carries them. */
    static class OlderLeader implements Leader {
        final List<NodeFacts> taken = new ArrayList<>();

        public void reportFacts(NodeFacts facts) throws LeaderLink.Refused {
            if (facts.slurmctldState() != 0) {
                throw new LeaderLink.Refused(400, "the leader refused the facts (400): unknown key \"slurmctld_state\": the keys "
                        + "there are address, boards, cores_per_socket");
            }
            taken.add(facts);
        }

        public Optional<PublishedPlan> poll(long held, Duration wait) {
            return Optional.empty();
        }

        public void postStatus(NodeReport report) {
        }
    }

    @Test
    void anOlderLeaderGetsEveryFactItReadsAndTheStepSaysWhatItCouldNotSay() throws Exception {
        OlderLeader leader = new OlderLeader();
        FactsStep step = new FactsStep(node -> new FactsCollector.Collected(CONTROLLER, List.of()), "n0");
        var outcome = step.report(leader);
        assertEquals(List.of(CONTROLLER.withSlurmctldState(0)), leader.taken);
        assertTrue(outcome.detail().endsWith("the leader is older than this agent and takes no saved-state facts (upgrade the "
                + "leader): it cannot tell whether this controller's slurmctld could start"), outcome.detail());
        step.report(leader);
        assertEquals(1, leader.taken.size(), "reported once, as any facts that did not change");
    }

    @Test
    void anyOtherRefusalIsTheStepsFailure() {
        Leader refusing = new OlderLeader() {
            @Override
            public void reportFacts(NodeFacts facts) throws LeaderLink.Refused {
                throw new LeaderLink.Refused(400, "cpus 0 is not a count");
            }
        };
        FactsStep step = new FactsStep(node -> new FactsCollector.Collected(CONTROLLER, List.of()), "n0");
        assertThrows(LeaderLink.Refused.class, () -> step.report(refusing));
    }
}
