package io.slurmlet.agent.api;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;

/** The shared model's JSON types, registered for reflection so a native build serialises them. */
@RegisterForReflection(targets = {SlurmSettings.class, SharedStorage.class, Experimental.class, Problem.class,
        SettingsDocument.class, ApiError.class, SlurmStatus.class, SlurmStatus.NodeStatus.class,
        io.slurmlet.model.facts.NodeFacts.class, io.slurmlet.model.facts.NodeFacts.Gpus.class,
        SettingsPreview.class, SettingsPreview.NodeChange.class, SettingsPreview.FileChange.class,
        SettingsPreview.DaemonChange.class, SettingsPreview.Change.class, SettingsPreview.Action.class})
final class ApiTypes {
    private ApiTypes() {
    }
}
