package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.settings.Problem;
import java.util.List;

/**
 * What the API answers when it refuses a request.
 *
 * @param error    one sentence: what was refused and why
 * @param problems for refused settings, every problem found, each naming key, value and fix
 * @param revision for a write that named an old revision, the current one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(
        @JsonProperty("error") String error,
        @JsonProperty("problems") List<Problem> problems,
        @JsonProperty("revision") Long revision) {

    public ApiError {
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    public static ApiError of(String error) {
        return new ApiError(error, List.of(), null);
    }
}
