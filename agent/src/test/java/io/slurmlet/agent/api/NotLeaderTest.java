package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(NotLeaderTest.NotLeader.class)
class NotLeaderTest {

    public static class NotLeader implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("slurmlet.leader.enabled", "false");
        }
    }

    @Test
    void anAgentThatIsNotTheLeaderPointsAtTheLeader() {
        admin().get("/v1/slurm/settings")
                .then()
                .statusCode(404)
                .body(
                        "error",
                        equalTo("this agent is not the leader: run ctl against the leader's address (--leader)"));
    }
}
