package io.slurmlet.agent.api;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.ContainerFile;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.JoinReply;
import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.ClockSeen;
import io.slurmlet.model.observed.ContainersSeen;
import io.slurmlet.model.observed.MungeSeen;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.PackagesSeen;
import io.slurmlet.model.observed.PamSeen;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.observed.StorageSeen;
import io.slurmlet.model.observed.UsersSeen;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.ManagedFile;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.NodePlanAsRead;
import io.slurmlet.model.plan.NodeWish;
import io.slurmlet.model.plan.PamPlan;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.SlurmJwks;
import io.slurmlet.model.plan.SlurmPlan;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.plan.UsersPlan;
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
            ContainerFile.class,
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
            ContainerFacts.class,
            ContainersPlan.class,
            Artifact.class,
            MungeKey.class,
            SlurmJwks.class,
            io.slurmlet.model.plan.SlurmAuthKeys.class,
            NodePlan.class,
            NodePlanAsRead.class,
            PublishedPlan.class,
            Role.class,
            StoragePlan.class,
            StoragePlan.None.class,
            StoragePlan.Mount.class,
            StoragePlan.Export.class,
            StoragePlan.Check.class,
            SlurmPlan.class,
            PamPlan.class,
            UsersPlan.class,
            UsersPlan.Leave.class,
            UsersPlan.Keep.class,
            ManagedFile.class,
            NodeWish.class,
            NodeWish.Resume.class,
            NodeWish.Drain.class,
            Observed.class,
            QueuedJob.class,
            MungeSeen.class,
            UsersSeen.class,
            UsersSeen.User.class,
            PackagesSeen.class,
            SlurmSeen.class,
            SlurmSeen.File.class,
            SlurmSeen.JwksSeen.class,
            StorageSeen.class,
            StorageSeen.Unit.class,
            PamSeen.class,
            ClockSeen.class,
            ContainersSeen.class,
            ContainersSeen.Pyxis.class,
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
