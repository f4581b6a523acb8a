package io.slurmlet.agent.leader;

import io.slurmlet.model.api.NodeReport;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last reconcile pass each agent posted, and when. Kept in memory: every agent posts again after
 * its next pass, so a restarted leader knows its machines again within a minute.
 */
public final class NodeReports {

    /** A report as received. */
    public record Received(NodeReport report, Instant at) { }

    private final Map<String, Received> reports = new ConcurrentHashMap<>();

    public void put(NodeReport report) {
        reports.put(report.node(), new Received(report, Instant.now()));
    }

    public Optional<Received> get(String node) {
        return Optional.ofNullable(reports.get(node));
    }
}
