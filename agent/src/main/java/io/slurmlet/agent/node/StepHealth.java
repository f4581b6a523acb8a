package io.slurmlet.agent.node;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * One readiness check per reconcile step, for monitoring: the machine is ready only when no step's
 * last run failed. A step that has not run yet is up, with {@code state: pending}.
 */
@ApplicationScoped
public class StepHealth {

    @Produces
    @Singleton
    @Readiness
    HealthCheck facts(NodeAgent agent) {
        return () -> check(agent, "facts");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck packages(NodeAgent agent) {
        return () -> check(agent, "packages");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck munge(NodeAgent agent) {
        return () -> check(agent, "munge");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck storage(NodeAgent agent) {
        return () -> check(agent, "storage");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck users(NodeAgent agent) {
        return () -> check(agent, "users");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck slurm(NodeAgent agent) {
        return () -> check(agent, "slurm");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck pam(NodeAgent agent) {
        return () -> check(agent, "pam");
    }

    @Produces
    @Singleton
    @Readiness
    HealthCheck nodeStates(NodeAgent agent) {
        return () -> check(agent, "nodestates");
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
        b.status(!status.get().failed()).withData("state", status.get().state()).withData("detail", status.get().detail())
                .withData("at", status.get().at());
        if (!status.get().lastError().isEmpty()) {
            b.withData("last_error", status.get().lastError()).withData("last_error_at", status.get().lastErrorAt());
        }
        return b.build();
    }
}
