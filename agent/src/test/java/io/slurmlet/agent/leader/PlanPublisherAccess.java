package io.slurmlet.agent.leader;

import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.model.plan.Artifact;
import java.util.List;

/** What tests of other packages may call of the publisher's package-private parts. */
public final class PlanPublisherAccess {

    private PlanPublisherAccess() {}

    public static Planner.Plans withArtifacts(Planner.Plans plans, List<Artifact> artifacts) {
        return PlanPublisher.withArtifacts(plans, artifacts);
    }
}
