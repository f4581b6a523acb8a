package io.slurmlet.agent.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.SettingsStore.Result;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsJson.BadJson;
import io.slurmlet.model.settings.SlurmSettings;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The leader's settings: read them, replace them (PUT, naming the revision read), change some keys
 * (PATCH, a JSON merge patch), lend and unlend single nodes. A refused change leaves the store as
 * it was and says every problem.
 */
@Path("/v1/slurm")
@Produces(MediaType.APPLICATION_JSON)
public class SettingsResource {

    static final String MERGE_PATCH_JSON = "application/merge-patch+json";
    private static final Pattern REVISION_TAG = Pattern.compile("(?:W/)?\"?(\\d{1,18})\"?");

    @Inject
    SettingsStore store;

    @Inject
    AgentConfig config;

    @GET
    @Path("/settings")
    public Response get() {
        return ok(store.current());
    }

    @PUT
    @Path("/settings")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response put(@HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, byte[] body) throws IOException {
        OptionalLong expected = revision(ifMatch);
        if (ifMatch == null) {
            return error(428, ApiError.of("a PUT replaces every setting, so it must say which revision it read: "
                    + "send \"If-Match\" with the ETag of GET /v1/slurm/settings, as If-Match: \"%d\""
                    .formatted(store.current().revision())));
        }
        SlurmSettings replacement = SettingsJson.toSettings(SettingsJson.readObject(limit(body)));
        return answer(store.update(expected, current -> replacement));
    }

    @PATCH
    @Path("/settings")
    @Consumes({MERGE_PATCH_JSON, MediaType.APPLICATION_JSON})
    public Response patch(@HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, byte[] body) throws IOException {
        OptionalLong expected = revision(ifMatch);
        JsonNode patch = SettingsJson.readObject(limit(body));
        return answer(store.update(expected, current ->
                SettingsJson.toSettings(SettingsJson.mergePatch(SettingsJson.STRICT.valueToTree(current), patch))));
    }

    @POST
    @Path("/lent/{node}")
    public Response lend(@PathParam("node") String node, @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch)
            throws IOException {
        return answer(store.update(revision(ifMatch), changeLent(lent -> {
            if (!lent.contains(node)) {
                lent.add(node);
            }
        })));
    }

    @DELETE
    @Path("/lent/{node}")
    public Response unlend(@PathParam("node") String node, @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch)
            throws IOException {
        return answer(store.update(revision(ifMatch), changeLent(lent -> lent.remove(node))));
    }

    private static UnaryOperator<SlurmSettings> changeLent(java.util.function.Consumer<List<String>> edit) {
        return current -> {
            List<String> lent = new ArrayList<>(current.lent());
            edit.accept(lent);
            return current.withLent(lent);
        };
    }

    private byte[] limit(byte[] body) {
        int max = config.leader().maxBodyBytes();
        if (body != null && body.length > max) {
            throw new BadJson("the body is %d bytes, over the %d this API reads: send only the settings"
                    .formatted(body.length, max));
        }
        return body == null ? new byte[0] : body;
    }

    /** The revision an If-Match header names; empty for none or {@code *}. */
    static OptionalLong revision(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank() || ifMatch.strip().equals("*")) {
            return OptionalLong.empty();
        }
        Matcher m = REVISION_TAG.matcher(ifMatch.strip());
        if (!m.matches()) {
            throw new BadJson("If-Match %s is not a revision: send the ETag of GET /v1/slurm/settings, as If-Match: \"7\""
                    .formatted(ifMatch.strip().length() > 40 ? "header" : "\"" + ifMatch.strip().replace("\"", "") + "\""));
        }
        return OptionalLong.of(Long.parseLong(m.group(1)));
    }

    private static Response answer(Result result) {
        if (result instanceof Result.Accepted a) {
            return ok(a.document());
        }
        if (result instanceof Result.Conflict c) {
            return error(409, new ApiError(("the settings changed since revision %d, which this change was based on; "
                    + "they are at revision %d now: read them again and redo the change").formatted(
                    c.expected(), c.current().revision()), List.of(), c.current().revision()));
        }
        Result.Refused r = (Result.Refused) result;
        return error(400, new ApiError("the settings were not changed: %d problem%s".formatted(
                r.problems().size(), r.problems().size() == 1 ? "" : "s"), r.problems(), null));
    }

    private static Response ok(SettingsDocument doc) {
        return Response.ok(doc).tag(new EntityTag(Long.toString(doc.revision()))).build();
    }

    static Response error(int status, ApiError error) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(error).build();
    }
}
