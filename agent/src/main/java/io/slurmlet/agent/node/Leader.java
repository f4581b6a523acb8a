package io.slurmlet.agent.node;

import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The leader, as a joined machine talks to it: {@link LeaderLink} over the agents' channel; a fake
 * in the node role's tests. A refusal is a {@link LeaderLink.Refused} with the leader's status.
 */
public interface Leader {

    void reportFacts(NodeFacts facts) throws IOException, InterruptedException;

    /**
     * This machine's plan if the leader has another revision than {@code held}; empty when none
     * came within {@code wait} (the leader holds the call that long).
     */
    Optional<PublishedPlan> poll(long held, Duration wait) throws IOException, InterruptedException;

    /**
     * {@link #poll(long, Duration)} for the plan {@code held} (empty before the first): a leader
     * told what it is ({@link io.slurmlet.model.plan.PlanDigest}) does not send it again under
     * another revision after it started anew.
     */
    default Optional<PublishedPlan> poll(Optional<PublishedPlan> held, Duration wait)
            throws IOException, InterruptedException {
        return poll(held.map(PublishedPlan::revision).orElse(0L), wait);
    }

    /**
     * The leader's clock as one answer said it.
     *
     * @param leader the address of the leader that answered
     * @param at     its clock when it answered
     */
    record Time(URI leader, Instant at) {}

    /**
     * Sends this machine's status.
     *
     * @return the leader's clock when it answered, where it said it (a leader older than that does not)
     */
    Optional<Time> postStatus(NodeReport report) throws IOException, InterruptedException;

    /**
     * The window the leader's last plan answer gave for calling it again once it is lost (its
     * machines at its {@code slurmlet.leader.reconnect-rate}); zero before one said it.
     */
    default Duration reconnectWindow() {
        return Duration.ZERO;
    }

    /**
     * A file the leader serves at {@code path} on the agents' channel (one of jobs in containers it
     * holds): its bytes as they come; a refusal is a {@link LeaderLink.Refused}.
     */
    default InputStream open(String path, Duration timeout) throws IOException, InterruptedException {
        throw new IOException("this leader serves no files");
    }
}
