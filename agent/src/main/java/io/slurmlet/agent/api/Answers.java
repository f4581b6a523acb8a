package io.slurmlet.agent.api;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson.BadJson;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** What every resource of the API answers alike: an error as JSON, and a body refused for its size. */
final class Answers {

    private Answers() {}

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
