package io.slurmlet.agent.api;

import io.quarkus.runtime.ShutdownEvent;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.ContainerFiles;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.LeaderStartup;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.lending.LendingEngine;
import io.slurmlet.agent.trust.AgentCredentials;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.vertx.core.Vertx;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.nio.file.Path;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** On the leader: opens the {@link AgentChannel} once the leader's state is open, and closes it at shutdown. */
@ApplicationScoped
public class AgentChannelServer implements LeaderChannel {

    @Inject
    AgentConfig config;

    @Inject
    Instance<Pki> pki;

    @Inject
    Instance<JoinTokens> joinTokens;

    @Inject
    Instance<AgentCredentials> credentials;

    @Inject
    Instance<Inventory> inventory;

    @Inject
    Instance<PlanPublisher> plans;

    @Inject
    Instance<NodeReports> reports;

    @Inject
    Instance<LendingEngine> lending;

    @Inject
    Instance<ContainerFiles> containerFiles;

    @ConfigProperty(name = "quarkus.http.domain-socket", defaultValue = "/run/slurmlet/leader.sock")
    String adminSocket;

    @ConfigProperty(name = "quarkus.http.domain-socket-enabled", defaultValue = "false")
    boolean adminSocketEnabled;

    private volatile AgentChannel channel;
    private volatile int agentPort;

    /** Once this agent leads (at start with the file store; once elected with etcd), after the leader's state opened. */
    void start(@Observes LeaderStartup.Leading leading) throws Exception {
        Vertx vertx = leading.vertx();
        channel = AgentChannel.builder()
                .pki(pki.get())
                .joinTokens(joinTokens.get())
                .credentials(credentials.get())
                .inventory(inventory.get())
                .plans(plans.get())
                .reports(reports.get())
                .lending(lending.get())
                .containerFiles(containerFiles.get())
                .adminSocket(adminSocketEnabled ? Path.of(adminSocket) : null)
                .build();
        agentPort = channel.start(vertx, config);
    }

    /** Before lending stops (LeaderStartup's shutdown): no agent is answered by a leader half gone. */
    void stop(@Observes @Priority(Interceptor.Priority.APPLICATION) ShutdownEvent event) {
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    public int agentPort() {
        return agentPort;
    }

    @Override
    public String advertisedUrl() {
        String host = config.leader().advertisedHost();
        return "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + agentPort;
    }
}
