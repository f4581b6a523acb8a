package io.slurmlet.agent.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.trust.JoinTokens;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The join tokens: made (the one answer that holds a token, with the line that joins a machine),
 * listed (never their secrets) and revoked.
 */
@Path("/v1/join-tokens")
@Produces(MediaType.APPLICATION_JSON)
public class JoinResource {

    private static final Logger LOG = Logger.getLogger(JoinResource.class);
    private static final Pattern TTL = Pattern.compile("([0-9]{1,6})([smhd])");

    /** A token to make: how long it works ({@code 24h}, {@code 90m}, {@code 7d}) and what it is for. */
    @RegisterForReflection
    public record NewToken(
            @JsonProperty("ttl") String ttl,
            @JsonProperty("description") String description) {}

    /** A token as listed: everything but its secret. */
    @RegisterForReflection
    public record Listed(
            @JsonProperty("id") String id,
            @JsonProperty("description") String description,
            @JsonProperty("created") String created,
            @JsonProperty("expires") String expires,
            @JsonProperty("expired") boolean expired) {}

    @Inject
    JoinTokens tokens;

    @Inject
    Pki pki;

    @Inject
    LeaderChannel leader;

    @Inject
    AgentConfig config;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(byte[] body, @Context HttpServerRequest http) throws IOException {
        byte[] bytes = Answers.limit(body, config.leader().maxBodyBytes(), "the token's ttl and description");
        NewToken asked = bytes.length == 0
                ? new NewToken(null, null)
                : SettingsJson.toValue(SettingsJson.readObject(bytes), NewToken.class);
        String ttlText = asked.ttl() == null ? "24h" : asked.ttl();
        Matcher m = TTL.matcher(ttlText);
        Duration ttl = m.matches()
                ? Duration.ofSeconds(Long.parseLong(m.group(1))
                        * switch (m.group(2)) {
                            case "s" -> 1;
                            case "m" -> 60;
                            case "h" -> 3600;
                            default -> 86400;
                        })
                : Duration.ZERO;
        if (!JoinTokens.validTtl(ttl)) {
            return refuse(
                    "ttl",
                    ttlText,
                    "ttl %s is not a time from 1s to %dd: a number and s, m, h or d, as 24h (the default) or 7d"
                            .formatted(Text.quote(ttlText), JoinTokens.MAX_TTL.toDays()));
        }
        String description = asked.description() == null ? "" : asked.description();
        if (!JoinTokens.validDescription(description)) {
            return refuse(
                    "description",
                    description,
                    "description %s is not one line of text of at most %d characters"
                            .formatted(Text.quote(description), JoinTokens.MAX_DESCRIPTION));
        }
        JoinTokens.Created made = tokens.create(ttl, description);
        LOG.infof(
                "join token %s made by %s, expires %s%s",
                made.entry().id(),
                caller(http),
                made.entry().expires(),
                description.isEmpty() ? "" : " (" + Text.quote(description) + ")");
        String url = leader.advertisedUrl();
        String hash = pki.caHash();
        return Response.status(201)
                .entity(new JoinInfo(
                        url,
                        made.token(),
                        hash,
                        joinLine(url, made.token(), hash),
                        made.entry().id(),
                        made.entry().expires()))
                .build();
    }

    @GET
    public Map<String, List<Listed>> list() {
        Instant now = Instant.now();
        return Map.of(
                "tokens",
                tokens.list().stream()
                        .map(e -> new Listed(e.id(), e.description(), e.created(), e.expires(), e.expiredAt(now)))
                        .toList());
    }

    @DELETE
    @Path("/{id}")
    public Response revoke(@PathParam("id") String id, @Context HttpServerRequest http) throws IOException {
        if (!JoinTokens.ID.matcher(id).matches() || !tokens.revoke(id)) {
            return Response.status(404)
                    .entity(ApiError.of("there is no join token %s: ctl slurm join-token list shows them"
                            .formatted(Text.quote(id))))
                    .build();
        }
        LOG.infof("join token %s revoked by %s", id, caller(http));
        return Response.ok(Map.of("id", id, "revoked", true)).build();
    }

    private static Response refuse(String key, String value, String message) {
        return Response.status(400)
                .entity(new ApiError(
                        "no join token was made: " + message, List.of(new Problem(key, value, message)), null))
                .build();
    }

    /**
     * The line that joins a machine: the token reaches {@code slurmlet-agent join} on its standard
     * input from the shell's own printf, so that it is in no process's command line, which every
     * user of the machine can read in ps while the join runs.
     */
    static String joinLine(String url, String token, String hash) {
        return "printf '%%s\\n' %s | slurmlet-agent join --leader %s --ca-hash %s --token -"
                .formatted(token, url, hash);
    }

    /** Who made an admin call, for the log: root on the leader's socket, or the admin token from an address. */
    static String caller(HttpServerRequest http) {
        if (http.localAddress() != null && http.localAddress().isDomainSocket()) {
            String handedOn = http.getHeader(AdminForwardRoutes.FORWARDED_FOR);
            return handedOn == null
                    ? "root over the leader's socket"
                    : "a request handed on by " + Text.oneLine(handedOn);
        }
        return "the admin token from " + http.remoteAddress();
    }
}
