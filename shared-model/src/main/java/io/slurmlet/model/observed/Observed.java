package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a machine's steps last saw of it, as its agent reports it: the leader's dry runs run each
 * step's diff against it, so a preview says what the agent would do to the machine as it is, not as
 * its plan says it should be. A step that has not looked yet (or is not on the step shape yet) is
 * null: the preview then takes the machine to hold its current plan. Never a secret, nor a digest of one.
 */
public record Observed(
        @JsonProperty("munge") MungeSeen munge,
        @JsonProperty("storage") StorageSeen storage,
        @JsonProperty("pam") PamSeen pam) {

    public static final Observed NOTHING = new Observed(null, null, null);
}
