package io.slurmlet.agent.api;

import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.LeaderStartup;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.store.Store;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the leader's settings are loaded and its store answers (etcd can be unreachable: then
 * no change can be kept, and monitoring is told so); says which revision it serves. A leader-eligible
 * agent standing by is ready while it reaches etcd, and says who leads.
 */
@Readiness
@ApplicationScoped
public class SettingsStoreHealth implements HealthCheck {

    @Inject
    Instance<SettingsStore> store;

    @Inject
    Leadership leadership;

    @Inject
    LeaderStartup startup;

    @Inject
    AgentConfig config;

    @Inject
    Store kept;

    @Override
    public HealthCheckResponse call() {
        var named = HealthCheckResponse.named("settings-store").up();
        // A standby is well while it can reach the store it would lead from, and says who leads.
        var b = config.isLeader() && !startup.serving()
                ? named.withData("role", leadership.leads() ? "elected, opening" : "standby")
                        .withData("leader", leadership.leader().orElse("(none yet)"))
                : named.withData("revision", store.get().current().revision());
        kept.unreachable().ifPresent(why -> b.down().withData("store", why));
        return b.build();
    }
}
