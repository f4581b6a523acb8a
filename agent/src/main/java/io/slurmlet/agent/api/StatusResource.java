package io.slurmlet.agent.api;

import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.api.SlurmStatus.NodeStatus;
import io.slurmlet.model.settings.SlurmSettings;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The Slurm cluster as the leader sees it: the settings' nodes, their roles and lending. */
@Path("/v1/slurm/status")
@Produces(MediaType.APPLICATION_JSON)
public class StatusResource {

    @Inject
    SettingsStore store;

    @GET
    public SlurmStatus status() {
        SettingsDocument doc = store.current();
        SlurmSettings s = doc.settings();
        Set<String> names = new LinkedHashSet<>();
        if (!s.controller().isEmpty()) {
            names.add(s.controller());
        }
        names.addAll(s.nodes());
        List<NodeStatus> nodes = new ArrayList<>();
        for (String name : names) {
            List<String> roles = new ArrayList<>();
            if (name.equals(s.controller())) {
                roles.add("slurmctld");
            }
            if (s.nodes().contains(name)) {
                roles.add("slurmd");
            }
            nodes.add(new NodeStatus(name, roles, s.isLent(name)));
        }
        return new SlurmStatus(doc.revision(), s.enabled(), s.clusterName(), s.controller(), s.partition(), nodes,
                s.check());
    }
}
