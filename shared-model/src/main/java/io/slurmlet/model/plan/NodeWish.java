package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * How slurmlet wants one Slurm node's state kept, from its lending: resumed while it is lent, drained
 * with a reason of slurmlet's while it is the platform's or being taken back. The controller's agent
 * acts on it; a drain of anyone else's is never touched.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "state")
@JsonSubTypes({
    @JsonSubTypes.Type(value = NodeWish.Resume.class, name = "resume"),
    @JsonSubTypes.Type(value = NodeWish.Drain.class, name = "drain")
})
public sealed interface NodeWish {

    /** The reason slurmlet drains a node that is the platform's. */
    String NOT_LENT = "slurmlet: not lent";
    /** The reason slurmlet drains a node it is taking back for the platform. */
    String RECLAIMING = "slurmlet: reclaiming for the platform";

    NodeWish RESUME = new Resume();
    NodeWish PLATFORMS = new Drain(NOT_LENT);
    NodeWish RECLAIM = new Drain(RECLAIMING);

    /** Lent: slurmlet's own drain is lifted, jobs may start. */
    record Resume() implements NodeWish {}

    /**
     * Drained with {@code reason}: running jobs finish, no new one starts.
     *
     * @param reason always slurmlet's own, starting {@code slurmlet:}, so an admin's drain can be told apart
     */
    record Drain(@JsonProperty("reason") String reason) implements NodeWish {
        public Drain {
            if (reason == null || !reason.startsWith("slurmlet:") || reason.contains("\n")) {
                throw new IllegalArgumentException(
                        "a drain of slurmlet's has a reason of one line starting slurmlet:, not " + reason);
            }
        }

        /** Whether this is the drain of a node being taken back, whose last job the controller watches for. */
        @JsonIgnore
        public boolean reclaims() {
            return reason.equals(RECLAIMING);
        }
    }
}
