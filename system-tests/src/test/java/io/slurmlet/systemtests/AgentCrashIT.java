package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the leader in the middle of a stream of writes, many times over: the store is always
 * readable afterwards, and no acknowledged change is ever lost.
 */
class AgentCrashIT {

    private static final int KILLS = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A change the leader acknowledged (200) or was sent and got no answer yet. */
    private record Write(long revision, String clusterName) {}

    @Test
    void noAcknowledgedChangeIsLostToKillNine(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        Random random = new Random(42);
        Write lastAcked = new Write(0, "slurmlet");
        int acked = 0;
        int inFlightKept = 0;
        for (int round = 0; round < KILLS; round++) {
            try (AgentProcess agent = new AgentProcess(state).start()) {
                JsonNode stored = get(agent);
                long revision = stored.get("revision").asLong();
                String name = stored.at("/settings/cluster_name").asText();
                // What survived the last kill: the last acknowledged write, or the one in flight after it.
                assertTrue(
                        revision == lastAcked.revision() || revision == lastAcked.revision() + 1,
                        "round %d: revision %d after the kill, last acknowledged %d"
                                .formatted(round, revision, lastAcked.revision()));
                if (revision == lastAcked.revision()) {
                    assertEquals(lastAcked.clusterName(), name, "round " + round + ": the acknowledged value");
                } else {
                    assertEquals("c" + revision, name, "round " + round + ": the write in flight");
                    inFlightKept++;
                }
                try (var files = Files.list(state)) {
                    assertTrue(
                            files.noneMatch(p -> p.getFileName().toString().contains(".tmp-")),
                            "temporary files were left after the restart");
                }
                lastAcked = new Write(revision, name);

                AtomicReference<Write> latest = new AtomicReference<>(lastAcked);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread writer = new Thread(() -> {
                    long rev = latest.get().revision();
                    while (!stop.get()) {
                        String next = "c" + (rev + 1);
                        try {
                            HttpResponse<String> r = agent.call(
                                    "PATCH",
                                    "/v1/slurm/settings",
                                    "{\"cluster_name\": \"" + next + "\"}",
                                    "If-Match",
                                    "\"" + rev + "\"");
                            if (r.statusCode() != 200) {
                                failure.set(new AssertionError("write answered " + r.statusCode() + ": " + r.body()));
                                return;
                            }
                            rev = JSON.readTree(r.body()).get("revision").asLong();
                            latest.set(new Write(rev, next));
                        } catch (Exception e) {
                            return; // the kill: this write was never acknowledged
                        }
                    }
                });
                writer.start();
                Thread.sleep(100 + random.nextInt(700));
                agent.kill9();
                stop.set(true);
                writer.join(10_000);
                if (failure.get() != null) {
                    fail(failure.get());
                }
                acked += (int) (latest.get().revision() - lastAcked.revision());
                lastAcked = latest.get();
            }
        }
        try (AgentProcess agent = new AgentProcess(state).start()) {
            JsonNode stored = get(agent);
            assertTrue(stored.get("revision").asLong() >= lastAcked.revision());
        }
        System.out.printf(
                "AgentCrashIT: %d kills, %d acknowledged writes, %d in-flight writes found stored%n",
                KILLS, acked, inFlightKept);
        assertTrue(acked > KILLS, "too few writes were acknowledged to prove anything: " + acked);
    }

    private static JsonNode get(AgentProcess agent) throws Exception {
        HttpResponse<String> r = agent.call("GET", "/v1/slurm/settings", null);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
