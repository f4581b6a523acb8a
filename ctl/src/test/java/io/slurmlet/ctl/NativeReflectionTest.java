package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.JsonTypes;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A native ctl reads with Jackson only the classes registered for reflection, and it reads every
 * leader's answer through its own mapper, which Quarkus cannot see. A JSON type added without
 * registration fails here, not in a native ctl at run time.
 */
class NativeReflectionTest {

    private static final String CTL = "io.slurmlet.ctl";

    @Test
    void everyJsonTypeOfTheModelIsRegistered() throws Exception {
        Set<Class<?>> model = JsonTypes.ofModel();
        assertTrue(
                model.containsAll(Set.of(SlurmSettings.class, NodePlan.class, Role.class)),
                "the walk found the model: " + model);
        assertEquals(
                List.of(),
                unregistered(model),
                "add these to the targets of io.slurmlet.ctl.NativeReflection: a native ctl cannot read them otherwise");
    }

    @Test
    void everyJsonTypeOfCtlIsRegistered() throws Exception {
        assertEquals(
                List.of(),
                unregistered(JsonTypes.annotatedUnder(CTL, NativeReflection.class)),
                "annotate these with @RegisterForReflection: a native ctl cannot read them otherwise");
    }

    private static List<String> unregistered(Set<Class<?>> types) throws Exception {
        Set<Class<?>> registered = JsonTypes.registeredUnder(CTL, NativeReflection.class);
        return types.stream()
                .filter(t -> !registered.contains(t))
                .map(Class::getName)
                .sorted()
                .toList();
    }
}
