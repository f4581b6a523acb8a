package io.slurmlet.agent.api;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson.BadJson;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Optional;

/**
 * What every resource of the API answers alike: an error as JSON, and a body refused for its size;
 * and the token an {@code Authorization} header bears, read alike where the admin token is handed
 * on ({@link StandbyForwarder}) and on the agents' channel.
 */
final class Answers {

    private static final String BEARER = "Bearer ";

    private Answers() {}

    /** The token after {@code Bearer } in an {@code Authorization} header, as sent; none for another header or none. */
    static Optional<String> bearer(String header) {
        return header != null && header.startsWith(BEARER)
                ? Optional.of(header.substring(BEARER.length()))
                : Optional.empty();
    }

    /** {@code error} as the body of a {@code status} answer, in JSON. */
    static Response error(int status, ApiError error) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(error)
                .build();
    }

    /** {@code body}, unless it is over {@code max} bytes (slurmlet.leader.max-body-bytes): then 400, naming {@code what} to send. */
    static byte[] limit(byte[] body, int max, String what) {
        if (body != null && body.length > max) {
            throw new BadJson(
                    "the body is %d bytes, over the %d this API reads: send only %s".formatted(body.length, max, what));
        }
        return body == null ? new byte[0] : body;
    }
}
