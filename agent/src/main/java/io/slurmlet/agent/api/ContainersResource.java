package io.slurmlet.agent.api;

import io.slurmlet.agent.containers.ArtifactTable;
import io.slurmlet.agent.leader.ContainerFiles;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.ContainerFile;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * The files of jobs in containers that the leader holds for machines that reach no mirror: {@code
 * ctl slurm containers import} hands each one over here; the leader keeps it only if its bytes have
 * the digest its table pins (or, where the table pins none, the one the admin gives) and then
 * serves it on the agents' channel.
 */
@Path("/v1/slurm/containers/files")
@Produces(MediaType.APPLICATION_JSON)
public class ContainersResource {

    @Inject
    ContainerFiles files;

    @Inject
    ArtifactTable table;

    @GET
    public List<ContainerFile> held() throws IOException {
        return files.held();
    }

    /** {@code PUT /v1/slurm/containers/files/FILE?sha256=HEX}: the file's bytes, the table's name for it. */
    @PUT
    @Path("/{file}")
    @Consumes(MediaType.APPLICATION_OCTET_STREAM)
    public Response put(@PathParam("file") String file, @QueryParam("sha256") String sha256, InputStream body)
            throws IOException {
        try {
            return Response.ok(
                            files.put(table, file, Optional.ofNullable(sha256).filter(s -> !s.isEmpty()), body))
                    .build();
        } catch (ContainerFiles.Refused e) {
            return Answers.error(400, ApiError.of(e.getMessage()));
        }
    }
}
