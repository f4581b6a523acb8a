package io.slurmlet.agent.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.PackagesSeen;
import io.slurmlet.model.observed.UsersSeen;
import io.slurmlet.model.plan.PublishedPlan;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The status poster against a leader of the release before the users and packages sections. */
class StatusPosterTest {

    /** Refuses a report that holds a section its release does not know, as the leader's strict reading does. */
    static class OlderLeader implements Leader {
        final List<String> received = new CopyOnWriteArrayList<>();

        public void reportFacts(NodeFacts facts) {}

        public Optional<PublishedPlan> poll(long held, Duration wait) {
            return Optional.empty();
        }

        public Optional<Leader.Time> postStatus(NodeReport report) throws java.io.IOException {
            String json = SettingsJson.STRICT.writeValueAsString(report);
            if (json.contains("\"users\"") || json.contains("\"packages\"")) {
                throw new LeaderLink.Refused(
                        400, "the leader refused POST /v1/agents/status (400): unknown key \"observed.users\"");
            }
            received.add(json);
            return Optional.empty();
        }
    }

    final LeaderClock clock = new LeaderClock(java.time.Clock.systemUTC());

    @Test
    void eachAnswerThatSaysTheLeadersTimeMeasuresThisMachinesClockAgainstIt() throws Exception {
        // A leader whose clock is 5 s behind this machine's, answering at once.
        List<NodeReport> got = new CopyOnWriteArrayList<>();
        Leader behind = new OlderLeader() {
            @Override
            public Optional<Leader.Time> postStatus(NodeReport report) {
                got.add(report);
                return Optional.of(new Leader.Time(
                        java.net.URI.create("https://n0:6820/"),
                        java.time.Instant.now().minusSeconds(5)));
            }
        };
        NodeReport report = new NodeReport("n1", 3, List.of(), List.of(), Observed.NOTHING);
        assertEquals(Optional.empty(), clock.seen(), "nothing measured before an answer");
        StatusPoster poster =
                new StatusPoster(() -> Optional.of(behind), () -> Optional.of(report), Duration.ofMillis(50), clock);
        poster.start();
        try {
            poster.changed();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> clock.seen().isPresent());
        } finally {
            poster.stop();
        }
        long ahead = clock.seen().get().aheadMs();
        assertTrue(Math.abs(ahead - 5000) <= 1 + clock.seen().get().errorMs(), "5 s ahead: " + clock.seen());
        long leaderNow = clock.instant().toEpochMilli();
        long ownNow = System.currentTimeMillis();
        assertTrue(
                Math.abs(ownNow - leaderNow - ahead) <= 50, "the leader's clock is this one's less " + ahead + " ms");
    }

    @Test
    void aLeaderOlderThanTheReportsSectionsGetsTheRestAndTheRestOnly() throws Exception {
        OlderLeader leader = new OlderLeader();
        Observed seen = new Observed(
                null,
                null,
                null,
                List.of("12"),
                new UsersSeen(true, List.of()),
                new PackagesSeen(List.of("munge"), List.of()),
                null);
        NodeReport report = new NodeReport("n1", 3, List.of(), List.of(), seen);
        StatusPoster poster =
                new StatusPoster(() -> Optional.of(leader), () -> Optional.of(report), Duration.ofMillis(50), clock);
        poster.start();
        try {
            poster.changed();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> !leader.received.isEmpty());
        } finally {
            poster.stop();
        }
        assertFalse(leader.received.isEmpty(), "the report reached the leader");
        NodeReport got = SettingsJson.STRICT.readValue(leader.received.get(0), NodeReport.class);
        assertEquals(List.of("12"), got.observed().jobs(), "the jobs still reach it");
        assertEquals(null, got.observed().users());
        assertFalse(leader.received.get(0).contains("\"packages\""));
    }

    @Test
    void aNewerAgentsSectionIsIgnoredByThisLeaderAndAnOlderAgentsReportReadsWithout() throws Exception {
        Observed read =
                SettingsJson.STRICT.readValue("{\"jobs\":[\"7\"],\"containers\":{\"enroot\":true}}", Observed.class);
        assertEquals(List.of("7"), read.jobs());
        assertTrue(read.users() == null && read.packages() == null);
    }
}
