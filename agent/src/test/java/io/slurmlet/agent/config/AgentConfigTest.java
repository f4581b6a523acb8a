package io.slurmlet.agent.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which role an agent.yaml gives: the leader, or a node of the leader it names. */
class AgentConfigTest {

    static AgentConfig config(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(AgentConfig.class)
                // Quarkus's own reading of "30s" and "5m", as the agent has it.
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "agent.yaml", 250))
                .build();
        return config.getConfigMapping(AgentConfig.class);
    }

    @Test
    void withNothingSetTheAgentLeads() {
        assertTrue(config(Map.of()).isLeader());
    }

    @Test
    void namingTheLeaderToJoinMakesANodeOnly() {
        AgentConfig c = config(Map.of(
                "slurmlet.node.leader",
                "https://n0:7818",
                "slurmlet.node.join-token",
                "t".repeat(43),
                "slurmlet.node.ca-hash",
                "sha256:" + "0".repeat(64)));
        assertFalse(c.isLeader(), "a machine joined through agent.yaml alone never leads a cluster of its own");
        assertTrue(c.node().enabled());
    }

    @Test
    void anExplicitSettingWins() {
        assertFalse(config(Map.of("slurmlet.leader.enabled", "false")).isLeader());
        assertTrue(config(Map.of("slurmlet.leader.enabled", "true", "slurmlet.node.leader", "https://n0:7818"))
                .isLeader());
    }
}
