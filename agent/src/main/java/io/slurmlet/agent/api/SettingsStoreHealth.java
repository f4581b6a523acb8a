package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.store.Store;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the leader's settings are loaded and its store answers (etcd can be unreachable: then
 * no change can be kept, and monitoring is told so); says which revision it serves.
 */
@Readiness
@ApplicationScoped
public class SettingsStoreHealth implements HealthCheck {

    @Inject
    SettingsStore store;

    @Inject
    Store kept;

    @Override
    public HealthCheckResponse call() {
        var b = HealthCheckResponse.named("settings-store").up().withData("revision", store.current().revision());
        kept.unreachable().ifPresent(why -> b.down().withData("store", why));
        return b.build();
    }
}
