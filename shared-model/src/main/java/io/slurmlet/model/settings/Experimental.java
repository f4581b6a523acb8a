package io.slurmlet.model.settings;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Slurm features that SchedMD calls experimental. Each is off unless asked for, and reaches
 * slurm.conf only on a controller whose Slurm version has it.
 *
 * @param enableAsyncReply adds {@code enable_async_reply} to {@code SlurmctldParameters} (Slurm
 *                         25.11 and later): slurmctld hands slow clients' replies to the kernel
 *                         instead of tying up its threads. False (the default): left out.
 */
public record Experimental(
        @JsonProperty("enable_async_reply") boolean enableAsyncReply) {

    /** Nothing experimental. */
    public static final Experimental NONE = new Experimental(false);
}
