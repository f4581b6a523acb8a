package io.slurmlet.ctl;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;

/** The API types ctl reads with Jackson, kept for reflection in a native build. */
@RegisterForReflection(targets = {SettingsDocument.class, SlurmSettings.class, SharedStorage.class, Experimental.class,
        SlurmStatus.class, SlurmStatus.NodeStatus.class, StepStatus.class, JoinInfo.class, ApiError.class, Problem.class,
        SettingsPreview.class, SettingsPreview.NodeChange.class, SettingsPreview.FileChange.class,
        SettingsPreview.DaemonChange.class, SettingsPreview.Change.class, SettingsPreview.Action.class,
        NodeLending.class, NodeLending.Transition.class, SlurmNodeState.class, Accounts.class, Account.class})
final class NativeReflection {
    private NativeReflection() {
    }
}
