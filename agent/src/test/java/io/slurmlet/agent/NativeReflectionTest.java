package io.slurmlet.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.leader.lending.LendingRecord;
import io.slurmlet.agent.leader.lending.Phase;
import io.slurmlet.model.JsonTypes;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A native agent reads and writes with Jackson only the classes registered for reflection; Quarkus
 * registers by itself only those a REST method names, not the plans, state files and channel
 * messages that go through {@code SettingsJson}'s mapper. A JSON type added without registration
 * fails here, not in a native agent at run time.
 */
class NativeReflectionTest {

    private static final String AGENT = "io.slurmlet.agent";

    @Test
    void everyJsonTypeOfTheModelIsRegistered() throws Exception {
        Set<Class<?>> model = JsonTypes.ofModel();
        assertTrue(
                model.containsAll(Set.of(SlurmSettings.class, NodePlan.class, Role.class)),
                "the walk found the model: " + model);
        assertEquals(
                List.of(),
                unregistered(model),
                "add these to the targets of io.slurmlet.agent.api.ApiTypes: a native agent cannot map them otherwise");
    }

    @Test
    void everyJsonTypeOfTheAgentIsRegistered() throws Exception {
        Set<Class<?>> own = JsonTypes.annotatedUnder(AGENT, LendingRecord.class);
        assertTrue(
                own.containsAll(Set.of(
                        LendingRecord.class,
                        Phase.class,
                        Class.forName("io.slurmlet.agent.trust.AgentCredentials$Kept"))),
                "the walk found the agent's: " + own);
        assertEquals(
                List.of(),
                unregistered(own),
                "annotate these with @RegisterForReflection: a native agent cannot map them otherwise");
    }

    private static List<String> unregistered(Set<Class<?>> types) throws Exception {
        Set<Class<?>> registered = JsonTypes.registeredUnder(AGENT, LendingRecord.class);
        return types.stream()
                .filter(t -> !registered.contains(t))
                .map(Class::getName)
                .sorted()
                .toList();
    }
}
