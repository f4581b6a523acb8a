package io.slurmlet.model.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slurmlet.model.settings.Problem;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON a refused request is answered with. */
class ApiErrorTest {

    @Test
    void plainRefusalHasNoRevision() throws JsonProcessingException {
        assertEquals(
                "{\"error\":\"settings are refused\",\"problems\":[]}",
                SettingsJson.STRICT.writeValueAsString(ApiError.of("settings are refused")));
    }

    @Test
    void refusedSettingsListEveryProblemWithKeyValueAndMessage() throws JsonProcessingException {
        ApiError error = new ApiError(
                "settings are refused", List.of(new Problem("users", "root", "users \"root\" is not a choice")), 7L);

        String json = SettingsJson.STRICT.writeValueAsString(error);

        assertEquals(
                "{\"error\":\"settings are refused\",\"problems\":[{\"key\":\"users\",\"value\":\"root\","
                        + "\"message\":\"users \\\"root\\\" is not a choice\"}],\"revision\":7}",
                json);
        assertEquals(error, SettingsJson.STRICT.readValue(json, ApiError.class));
    }

    @Test
    void missingProblemsAreAnEmptyList() {
        assertEquals(List.of(), new ApiError("refused", null, null).problems());
    }
}
