package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's loop that moves a rotation of Slurm's keys on, one look at a time, with no thread. */
class SlurmKeysDriverTest {

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");

    @TempDir
    Path state;

    private final Instant[] now = {T0};
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now[0];
        }
    };

    private SlurmKeys keys;
    private final Map<String, Observed> observed = new HashMap<>();
    private int replans;
    private SlurmSettings settings;
    private SlurmKeysDriver driver;

    @BeforeEach
    void open() throws IOException {
        keys = SlurmKeys.open(state, clock);
        settings = settings("{\"auth\": \"slurm\", \"slurm_conf\": {\"AuthInfo\": \"ttl=10\"}}");
        driver = new SlurmKeysDriver(
                keys,
                () -> settings,
                this::plans,
                () -> Map.copyOf(observed),
                () -> replans++,
                Duration.ofSeconds(5),
                clock);
    }

    private static SlurmSettings settings(String json) throws IOException {
        return SettingsJson.STRICT.readValue(json, SlurmSettings.class);
    }

    /** n0 the controller, n1 a node, both with the keys {@link #keys} holds now; n2 without Slurm's keys. */
    private Map<String, PublishedPlan> plans() {
        return Map.of(
                "n0",
                new PublishedPlan(
                        1,
                        NodePlan.of("n0", Set.of(Role.CONTROLLER))
                                .withSlurm(Map.of(), List.of("munge", "slurmctld"))
                                .withSlurmKeys(Optional.of(keys.current()))),
                "n1",
                new PublishedPlan(
                        1,
                        NodePlan.of("n1", Set.of(Role.COMPUTE))
                                .withSlurm(Map.of(), List.of("slurmd"))
                                .withSlurmKeys(Optional.of(keys.current()))),
                "n2",
                new PublishedPlan(1, NodePlan.of("n2", Set.of(Role.COMPUTE)).withSlurm(Map.of(), List.of("slurmd"))));
    }

    private void loaded(String node, String unit, long generation) {
        observed.put(
                node,
                new Observed(
                        null,
                        null,
                        null,
                        List.of(),
                        null,
                        null,
                        new SlurmSeen(
                                List.of(),
                                List.of(unit),
                                List.of(unit),
                                List.of(),
                                false,
                                new SlurmSeen.JwksSeen(generation, Map.of(unit, generation)))));
    }

    @Test
    void withNoRotationUnderWayALookDoesNothing() {
        assertFalse(driver.step());
        assertEquals(0, replans);
    }

    @Test
    void aRotationMovesOnAsTheDaemonsLoadEachGenerationAndEveryMoveIsPlanned() throws IOException {
        keys.rotate("root");
        loaded("n0", "slurmctld", 2);
        assertFalse(driver.step(), "n1's slurmd has not loaded generation 2");
        assertEquals(0, replans);

        loaded("n1", "slurmd", 2);
        assertTrue(driver.step());
        assertEquals(KeyPhases.Phase.SWITCHED, keys.state().phase());
        assertEquals("slurmlet-2", keys.current().jwks().signing());
        assertEquals(1, replans, "the plans carry generation 3");
        assertEquals(keys.current(), plans().get("n1").plan().slurmKeys().orElseThrow());

        loaded("n0", "slurmctld", 3);
        loaded("n1", "slurmd", 3);
        assertTrue(driver.step());
        assertEquals(Optional.of(T0), keys.state().loadedEverywhere());

        now[0] = T0.plusSeconds(14);
        assertFalse(driver.step(), "AuthInfo's ttl=10 and the margin, 5 s, have not passed");
        now[0] = T0.plusSeconds(15);
        assertTrue(driver.step());
        assertEquals(KeyPhases.Phase.STEADY, keys.state().phase());
        assertEquals(List.of("slurmlet-2"), keys.current().jwks().kids());
        assertEquals(3, replans);
        assertEquals(keys.state(), SlurmKeys.open(state, clock).state(), "each move is kept");
        assertFalse(driver.step());
    }

    @Test
    void theTokenLifetimeIsAuthInfosTtlElseSixtySeconds() throws IOException {
        assertEquals(Duration.ofSeconds(10), SlurmKeysDriver.ttl(settings));
        assertEquals(
                Duration.ofSeconds(20),
                SlurmKeysDriver.ttl(settings("{\"slurm_conf\": {\"authinfo\": \"socket=/run/x,ttl=20\"}}")));
        assertEquals(
                Duration.ofSeconds(60),
                SlurmKeysDriver.ttl(settings("{\"slurm_conf\": {\"AuthInfo\": \"cred_expire=30\"}}")));
        assertEquals(Duration.ofSeconds(60), SlurmKeysDriver.ttl(settings("{}")));
        assertEquals(Duration.ofSeconds(15), driver.ttlPlusMargin(settings));
    }

    @Test
    void theDaemonsWaitedForAreSlurmctldAndSlurmdOfPlansThatCarryTheKeys() {
        assertEquals(
                Map.of("n0", Set.of("slurmctld"), "n1", Set.of("slurmd")), SlurmKeysDriver.daemons(plans().values()));
    }
}
