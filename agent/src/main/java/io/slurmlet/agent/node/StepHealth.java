package io.slurmlet.agent.node;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.health.api.HealthRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness for monitoring: one check per step the wiring has ({@code step slurm}, …), so the
 * machine is ready only when no step's last run failed. A step that has not run yet is up, with
 * {@code state: pending}.
 */
@ApplicationScoped
public class StepHealth {

    @Inject
    @Readiness
    HealthRegistry readiness;

    void register(@Observes StartupEvent event, NodeAgent agent) {
        for (String step : agent.steps()) {
            readiness.register("step " + step, () -> check(agent, step));
        }
    }

    static HealthCheckResponse check(NodeAgent agent, String step) {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("step " + step);
        if (!agent.enabled()) {
            return b.up().withData("state", "node role off").build();
        }
        var status = agent.step(step);
        if (status.isEmpty()) {
            return b.up().withData("state", "pending").build();
        }
        b.status(!status.get().failed())
                .withData("state", status.get().state())
                .withData("detail", status.get().detail())
                .withData("at", status.get().at());
        if (!status.get().lastError().isEmpty()) {
            b.withData("last_error", status.get().lastError())
                    .withData("last_error_at", status.get().lastErrorAt());
        }
        return b.build();
    }
}
