package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * What one machine does for the cluster's shared storage: the planner's whole decision, so that the
 * storage step reads nothing else (not the settings, not slurm.conf).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = StoragePlan.None.class, name = "none"),
    @JsonSubTypes.Type(value = StoragePlan.Mount.class, name = "mount"),
    @JsonSubTypes.Type(value = StoragePlan.Export.class, name = "export"),
    @JsonSubTypes.Type(value = StoragePlan.Check.class, name = "check")
})
public sealed interface StoragePlan {

    StoragePlan NONE = new None();

    /** Where the storage is on this machine; "" for none. */
    String path();

    /** No shared storage here: a mount or export slurmlet made earlier is removed. */
    record None() implements StoragePlan {
        @JsonIgnore
        @Override
        public String path() {
            return "";
        }
    }

    /**
     * Mount {@code source} at {@code path} with a systemd mount unit.
     *
     * @param ours whether the export is slurmlet's own ({@code shared.server}, NFSv3) rather than a site's
     */
    record Mount(
            @JsonProperty("path") String path,
            @JsonProperty("source") String source,
            @JsonProperty("ours") boolean ours)
            implements StoragePlan {}

    /**
     * This machine is {@code shared.server}: it exports {@code path} to {@code clients}, the machines
     * slurm.conf names (the controller first, then the nodes in its order); none yet: the export waits.
     */
    record Export(
            @JsonProperty("path") String path,
            @JsonProperty("clients") List<String> clients) implements StoragePlan {
        public Export {
            clients = clients == null ? List.of() : List.copyOf(clients);
        }
    }

    /** The site mounts {@code path} itself: the step only checks that something is mounted there. */
    record Check(@JsonProperty("path") String path) implements StoragePlan {}
}
