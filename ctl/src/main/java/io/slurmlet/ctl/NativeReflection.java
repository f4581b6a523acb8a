package io.slurmlet.ctl;

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
 * The shared model's JSON types, kept for reflection in a native ctl: ctl reads the leader's
 * answers with its own ObjectMapper ({@link Leader#JSON}), which native-image cannot follow. All of
 * them, not only those ctl reads today, so that a command reading one more needs nothing here;
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
            ClockSeen.class,
            ContainersSeen.class,
            ContainersSeen.Pyxis.class,
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
            SlurmSettings.class,
            SharedStorage.class,
            Experimental.class,
            Problem.class,
            Account.class,
            Accounts.class
        },
        // ManagedFile's own serializer (its JSON writes each shared text once): Jackson makes it by reflection.
        classNames = {"io.slurmlet.model.plan.ManagedFile$Json"})
final class NativeReflection {
    private NativeReflection() {}
}
