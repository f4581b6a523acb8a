package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.SettingsStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the leader's settings are loaded; says which revision it serves. */
@Readiness
@ApplicationScoped
public class SettingsStoreHealth implements HealthCheck {

    @Inject
    SettingsStore store;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("settings-store")
                .up()
                .withData("revision", store.current().revision())
                .build();
    }
}
