package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.settings.SlurmSettings;

/**
 * The settings as the leader stores them, with the revision a change must name to replace them.
 *
 * @param revision raised by one with every accepted change; 0 before the first
 * @param settings the settings themselves
 */
public record SettingsDocument(
        @JsonProperty("revision") long revision,
        @JsonProperty("settings") SlurmSettings settings) {}
