package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.facts.FactsCollector;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PublishedPlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Facts reported to a leader older than this agent: what it cannot read is left out, the rest still reaches it. */
class FactsStepTest {

    static final NodeFacts CONTROLLER = TestFacts.eightCores("n0")
            .os("debian 13")
            .slurmVersion("24.11.5")
            .build()
            .withSlurmctldState(42 << 8);

    /** A leader that refuses, as one before the saved-state facts does, every report that carries them. */
    static class OlderLeader implements Leader {
        final List<NodeFacts> taken = new ArrayList<>();

        public void reportFacts(NodeFacts facts) throws LeaderLink.Refused {
            if (facts.slurmctldState() != 0) {
                throw new LeaderLink.Refused(
                        400,
                        "the leader refused the facts (400): unknown key \"slurmctld_state\": the keys "
                                + "there are address, boards, cores_per_socket");
            }
            taken.add(facts);
        }

        public Optional<PublishedPlan> poll(long held, Duration wait) {
            return Optional.empty();
        }

        public Optional<Leader.Time> postStatus(NodeReport report) {
            return Optional.empty();
        }
    }

    @Test
    void anOlderLeaderGetsEveryFactItReadsAndTheStepSaysWhatItCouldNotSay() throws Exception {
        OlderLeader leader = new OlderLeader();
        FactsStep step = new FactsStep(node -> new FactsCollector.Collected(CONTROLLER, List.of()), "n0");
        var outcome = step.report(leader);
        assertEquals(List.of(CONTROLLER.withSlurmctldState(0)), leader.taken);
        assertTrue(
                outcome.detail()
                        .endsWith("the leader is older than this agent and takes no saved-state facts (upgrade the "
                                + "leader): it cannot tell whether this controller's slurmctld could start"),
                outcome.detail());
        step.report(leader);
        assertEquals(1, leader.taken.size(), "reported once, as any facts that did not change");
    }

    /** A leader of the release before the plugin list: it knows the saved-state facts, and refuses slurm_plugins. */
    static class LeaderBeforePlugins extends OlderLeader {
        @Override
        public void reportFacts(NodeFacts facts) throws LeaderLink.Refused {
            if (!facts.slurmPlugins().isEmpty()) {
                throw new LeaderLink.Refused(
                        400,
                        "the leader refused the facts (400): unknown key \"slurm_plugins\": the keys "
                                + "there are address, boards, cores_per_socket");
            }
            taken.add(facts);
        }
    }

    @Test
    void aLeaderBeforeThePluginListGetsEveryOtherFactAndOneOlderStillTakesTheRest() throws Exception {
        NodeFacts withPlugins = CONTROLLER.withSlurmPlugins(List.of("auth_munge", "sched_backfill"));
        LeaderBeforePlugins before = new LeaderBeforePlugins();
        var outcome = new FactsStep(node -> new FactsCollector.Collected(withPlugins, List.of()), "n0").report(before);
        assertEquals(List.of(CONTROLLER), before.taken, "the saved state still reaches it");
        assertTrue(
                outcome.detail()
                        .endsWith("the leader is older than this agent and takes no list of Slurm plugins (upgrade the "
                                + "leader): it cannot check a site's plugin names against this machine's"),
                outcome.detail());
        OlderLeader older = new OlderLeader() {
            @Override
            public void reportFacts(NodeFacts facts) throws LeaderLink.Refused {
                // Jackson names the first key it does not know, in the record's order.
                if (facts.slurmctldState() == 0 && !facts.slurmPlugins().isEmpty()) {
                    throw new LeaderLink.Refused(
                            400, "the leader refused the facts (400): unknown key \"slurm_plugins\"");
                }
                super.reportFacts(facts);
            }
        };
        outcome = new FactsStep(node -> new FactsCollector.Collected(withPlugins, List.of()), "n0").report(older);
        assertEquals(List.of(CONTROLLER.withSlurmctldState(0)), older.taken);
        assertTrue(outcome.detail().contains("takes no saved-state facts"), outcome.detail());
    }

    @Test
    void aLeaderBeforeContainersGetsTheFactsWithoutThemAndTheStepSaysSo() throws Exception {
        NodeFacts withContainers =
                CONTROLLER.withContainers(new io.slurmlet.model.facts.ContainerFacts("4.1.2", "", "", "", true));
        OlderLeader older = new OlderLeader() {
            @Override
            public void reportFacts(NodeFacts facts) throws LeaderLink.Refused {
                if (facts.containers() != null) {
                    throw new LeaderLink.Refused(400, "the leader refused the facts (400): unknown key \"containers\"");
                }
                super.reportFacts(facts);
            }
        };
        var outcome =
                new FactsStep(node -> new FactsCollector.Collected(withContainers, List.of()), "n0").report(older);
        assertEquals(
                List.of(CONTROLLER.withSlurmctldState(0)), older.taken, "every other fact it takes still reaches it");
        assertTrue(
                outcome.detail()
                        .contains(
                                "takes no report of enroot and pyxis (upgrade the leader): it cannot have Slurm load pyxis"),
                outcome.detail());
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

    /** A leader that takes every report, unless it is down. */
    static class TakingLeader implements Leader {
        final List<NodeFacts> taken = new ArrayList<>();
        int downFor;

        public void reportFacts(NodeFacts facts) throws java.io.IOException {
            if (downFor > 0) {
                downFor--;
                throw new java.io.IOException("connection refused");
            }
            taken.add(facts);
        }

        public Optional<PublishedPlan> poll(long held, Duration wait) {
            return Optional.empty();
        }

        public Optional<Leader.Time> postStatus(NodeReport report) {
            return Optional.empty();
        }
    }

    static NodePlan madeFrom(NodeFacts facts) {
        return NodePlan.of("n0", java.util.Set.of()).madeFrom(facts);
    }

    @Test
    void aPlanMadeFromOtherFactsThanTheMachinesGetsThemReportedAgainAndOneMadeFromTheseDoesNot() throws Exception {
        TakingLeader leader = new TakingLeader();
        FactsStep step = new FactsStep(node -> new FactsCollector.Collected(CONTROLLER, List.of()), "n0");
        assertEquals(Outcome.Kind.CHANGED, step.report(leader).kind());
        step.planned(madeFrom(CONTROLLER));
        assertEquals(Outcome.Kind.UNCHANGED, step.report(leader).kind());
        assertEquals(1, leader.taken.size());
        // The leader's store was restored from before a GPU was added: its plan says so, and it gets the facts again.
        NodeFacts before = TestFacts.eightCores("n0")
                .gpus(List.of(new NodeFacts.Gpus("NVIDIA H100", 4)))
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build();
        step.planned(madeFrom(before));
        Diff diff = step.diff(Optional.of(before), new FactsCollector.Collected(CONTROLLER, List.of()));
        assertEquals(
                List.of(
                        "report this machine's facts to the leader (the leader has GPUs 4 NVIDIA H100, the machine none, "
                                + "slurmctld's saved state 0, the machine 10752)"),
                diff.will());
        Outcome again = step.report(leader);
        assertEquals(Outcome.changed("facts", "8 CPUs, 32000 MiB, 0 GPUs, debian 13, Slurm 24.11.5"), again);
        assertEquals(List.of(CONTROLLER, CONTROLLER), leader.taken);
        // A plan of format 2 says nothing of its facts: what the leader last took stands.
        step.planned(NodePlan.of("n0", java.util.Set.of()));
        assertEquals(Outcome.Kind.UNCHANGED, step.report(leader).kind());
        step.forget();
        assertEquals(Outcome.Kind.CHANGED, step.report(leader).kind(), "a new link gets them again");
    }

    @Test
    void aLeaderThatCannotBeReachedIsThePollersToBackOffFromAndTheFactsAreTriedAgain() throws Exception {
        TakingLeader leader = new TakingLeader();
        leader.downFor = 1;
        FactsStep step =
                new FactsStep(node -> new FactsCollector.Collected(CONTROLLER, List.of("nvidia-smi timed out")), "n0");
        java.io.IOException down = assertThrows(java.io.IOException.class, () -> step.report(leader));
        assertEquals("connection refused", down.getMessage());
        assertEquals(
                Outcome.changed("facts", "8 CPUs, 32000 MiB, 0 GPUs, debian 13, Slurm 24.11.5; nvidia-smi timed out"),
                step.report(leader));
        assertEquals(List.of(CONTROLLER), leader.taken);
    }
}
