package io.slurmlet.agent.api;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.JoinReply;
import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;

/**
 * Every JSON type of the shared model, registered for reflection so a native agent can read and
 * write them. Quarkus registers by itself only what a REST method names in its signature; the rest
 * goes through {@code SettingsJson}'s ObjectMapper, which native-image cannot follow: the agents'
 * channel (facts, reports, plans, join replies), the leader's state files (settings.json,
 * accounts.json, inventory.json), a node's plan on disk, the bodies of {@code Response}s and
 * {@code LeaderLink}'s answers. The shared model has no Quarkus to annotate itself with, so the list
 * is here; the agent's own JSON types carry {@code @RegisterForReflection} themselves.
 * {@code NativeReflectionTest} fails when a JSON type of the model is missing.
 */
@RegisterForReflection(
        targets = {
            ApiError.class,
            io.slurmlet.model.api.ContainerFile.class,
            JoinInfo.class,
            JoinReply.class,
            NodeReport.class,
            SettingsDocument.class,
            NodeLending.class,
            NodeLending.Transition.class,
            SlurmNodeState.class,
            SettingsPreview.class,
            SettingsPreview.NodeChange.class,
            SettingsPreview.FileChange.class,
            SettingsPreview.DaemonChange.class,
            SettingsPreview.Change.class,
            SettingsPreview.Action.class,
            SlurmStatus.class,
            SlurmStatus.NodeStatus.class,
            StepStatus.class,
            NodeFacts.class,
            NodeFacts.Gpus.class,
            io.slurmlet.model.facts.ContainerFacts.class,
            io.slurmlet.model.plan.ContainersPlan.class,
            io.slurmlet.model.plan.Artifact.class,
            MungeKey.class,
            NodePlan.class,
            PublishedPlan.class,
            Role.class,
            io.slurmlet.model.plan.StoragePlan.class,
            io.slurmlet.model.plan.StoragePlan.None.class,
            io.slurmlet.model.plan.StoragePlan.Mount.class,
            io.slurmlet.model.plan.StoragePlan.Export.class,
            io.slurmlet.model.plan.StoragePlan.Check.class,
            io.slurmlet.model.plan.SlurmPlan.class,
            io.slurmlet.model.plan.PamPlan.class,
            io.slurmlet.model.plan.UsersPlan.class,
            io.slurmlet.model.plan.UsersPlan.Leave.class,
            io.slurmlet.model.plan.UsersPlan.Keep.class,
            io.slurmlet.model.plan.ManagedFile.class,
            io.slurmlet.model.plan.NodeWish.class,
            io.slurmlet.model.plan.NodeWish.Resume.class,
            io.slurmlet.model.plan.NodeWish.Drain.class,
            io.slurmlet.model.observed.Observed.class,
            io.slurmlet.model.observed.QueuedJob.class,
            io.slurmlet.model.observed.MungeSeen.class,
            io.slurmlet.model.observed.UsersSeen.class,
            io.slurmlet.model.observed.UsersSeen.User.class,
            io.slurmlet.model.observed.PackagesSeen.class,
            io.slurmlet.model.observed.SlurmSeen.class,
            io.slurmlet.model.observed.SlurmSeen.File.class,
            io.slurmlet.model.observed.StorageSeen.class,
            io.slurmlet.model.observed.StorageSeen.Unit.class,
            io.slurmlet.model.observed.PamSeen.class,
            SlurmSettings.class,
            SharedStorage.class,
            Experimental.class,
            Problem.class,
            Account.class,
            Accounts.class
        },
        // ManagedFile's own serializer (its JSON writes each shared text once): Jackson makes it by reflection.
        classNames = {"io.slurmlet.model.plan.ManagedFile$Json"})
final class ApiTypes {
    private ApiTypes() {}
}
