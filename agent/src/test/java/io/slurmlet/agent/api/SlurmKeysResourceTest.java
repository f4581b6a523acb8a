package io.slurmlet.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What status says of each daemon's keys, and which agents are too old to be rotated. */
class SlurmKeysResourceTest {

    private static Observed reporting(SlurmSeen.JwksSeen jwks) {
        return new Observed(
                null,
                null,
                null,
                List.of(),
                null,
                null,
                new SlurmSeen(List.of(), List.of("slurmd"), List.of("slurmd"), List.of(), false, jwks));
    }

    @Test
    void eachDaemonIsSaidInWords() {
        assertEquals(
                List.of(
                        new SlurmKeysResource.Machine(
                                "n0", Map.of("slurmctld", "loaded generation 8", "slurmd", "not loaded yet")),
                        new SlurmKeysResource.Machine("n1", Map.of("slurmd", "not reported"))),
                SlurmKeysResource.machines(
                        Map.of("n1", Set.of("slurmd"), "n0", Set.of("slurmd", "slurmctld")),
                        Map.of("n0", new SlurmSeen.JwksSeen(8L, Map.of("slurmctld", 8L)))));
    }

    @Test
    void anAgentThatReportsSlurmAndNoKeysIsTooOldAndOneThatReportsNothingIsNot() {
        List<PublishedPlan> plans = List.of(
                new PublishedPlan(1, NodePlan.of("n1", Set.of(Role.COMPUTE)).withSlurm(Map.of(), List.of("slurmd"))),
                new PublishedPlan(1, NodePlan.of("n2", Set.of(Role.COMPUTE)).withSlurm(Map.of(), List.of("slurmd"))),
                new PublishedPlan(1, NodePlan.of("n3", Set.of(Role.COMPUTE)).withSlurm(Map.of(), List.of("slurmd"))),
                new PublishedPlan(1, NodePlan.of("gpu9", Set.of())));
        assertEquals(
                List.of("n1"),
                SlurmKeysResource.olderAgents(
                        plans,
                        Map.of(
                                "n1", reporting(null),
                                "n2", reporting(SlurmSeen.JwksSeen.NONE),
                                "gpu9", reporting(null))));
    }
}
