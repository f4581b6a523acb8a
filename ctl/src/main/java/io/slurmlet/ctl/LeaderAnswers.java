package io.slurmlet.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.settings.Problem;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How ctl takes the leader's answers: a body read as the type asked for, and every refusal turned
 * into a {@link CtlException} a person can act on (which leader, which request, what it said, and
 * for a token refused, where ctl found it).
 */
final class LeaderAnswers {

    private final LeaderClient client;
    private final LeaderResolver.Resolved target;

    LeaderAnswers(LeaderClient client, LeaderResolver.Resolved target) {
        this.client = client;
        this.target = target;
    }

    /**
     * A request about one thing (an account, a token, a machine) whose refusals are a {@link Refused}:
     * a 400; a 404 that names what is missing (not the leader's "no such resource" for a path it
     * does not serve); a 409, which here is never a settings revision's conflict but a name taken
     * or jobs running.
     */
    LeaderClient.Response refusable(HttpMethod method, String path, String body) {
        LeaderClient.Response r = client.send(method, path, body == null ? Map.of() : Leader.JSON_BODY, body);
        if (r.ok()) {
            return r;
        }
        Optional<String> said = apiError(r.body()).map(ApiError::error).filter(s -> s != null && !s.isBlank());
        if (r.status() == 404 && said.isPresent() && !said.get().startsWith(Leader.NO_SUCH_RESOURCE)) {
            throw new Refused(said.get(), List.of(), r.body());
        }
        if (r.status() == 409) {
            throw new Refused(said.orElseGet(() -> excerpt(r.body())), List.of(), r.body());
        }
        CtlException e = refusal(method + " " + path, r);
        throw r.status() == 400 ? new Refused(e.getMessage(), e.details(), e.responseBody()) : e;
    }

    LeaderClient.Response send(HttpMethod method, String path, Map<String, String> headers, String body) {
        LeaderClient.Response r = client.send(method, path, headers, body);
        if (!r.ok()) {
            throw refusal(method + " " + path, r);
        }
        return r;
    }

    <T> Leader.Answer<T> read(LeaderClient.Response r, Class<T> type, String request) {
        return read(r, Leader.JSON.constructType(type), request);
    }

    /** Reads a JSON object, or a JSON array for a list type. */
    <T> Leader.Answer<T> read(LeaderClient.Response r, JavaType type, String request) {
        try {
            JsonNode tree = Leader.JSON.readTree(r.body());
            boolean list = type.isCollectionLikeType();
            if (tree == null || (list ? !tree.isArray() : !tree.isObject())) {
                throw new IllegalArgumentException(
                        r.body().isBlank() ? "an empty body" : list ? "not a JSON array" : "not a JSON object");
            }
            T value = Leader.JSON.readerFor(type).readValue(tree);
            return new Leader.Answer<>(value, tree, r.body());
        } catch (IOException | IllegalArgumentException e) {
            throw new CtlException(
                    "the leader at %s answered %s with something ctl cannot read (%s): is it slurmlet's leader, of this version?"
                            .formatted(
                                    client.address(),
                                    request,
                                    e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()),
                    e);
        }
    }

    CtlException refusal(String request, LeaderClient.Response r) {
        Optional<ApiError> error = apiError(r.body());
        String said = error.map(ApiError::error)
                .filter(s -> s != null && !s.isBlank())
                .orElseGet(() -> excerpt(r.body()));
        String json = error.isPresent() ? r.body() : null;
        String at = "the leader at " + client.address() + target.leaderOrigin();
        return switch (r.status()) {
            case 400 -> {
                List<Problem> problems = error.map(ApiError::problems).orElse(List.of());
                // With problems, the leader's sentence says the change was refused ("the settings were not changed:
                // …").
                yield new CtlException(
                        problems.isEmpty() ? "the leader refused the request: " + said : said,
                        problems.stream().map(Problem::shown).toList(),
                        json,
                        null);
            }
            case 401 ->
                new CtlException(
                        client.sendsToken()
                                ? "%s refused the token in %s%s: %s"
                                        .formatted(at, target.tokenFile().orElseThrow(), tokenOrigin(), said)
                                : ("%s wants a token, and ctl found none (no --token-file, no %s, no token_file in %s, and %s is not "
                                                + "readable here): name the leader's admin token with --token-file PATH")
                                        .formatted(
                                                at,
                                                LeaderResolver.TOKEN_FILE_ENV,
                                                LeaderResolver.DEFAULT_CONFIG,
                                                LeaderResolver.DEFAULT_TOKEN_FILE),
                        List.of(),
                        json,
                        null);
            case 409, 412 ->
                new Conflict(
                        "someone else changed the settings since ctl read them%s: run the command again"
                                .formatted(error.map(ApiError::revision)
                                        .map(rev -> " (the leader is at revision " + rev + " now)")
                                        .orElse("")),
                        error.map(ApiError::revision).orElse(null),
                        json);
            case 404 ->
                new CtlException(
                        "%s has no %s (HTTP 404: %s): is it an older slurmlet-agent than ctl %s?"
                                .formatted(at, request, said, CtlVersion.version()),
                        List.of(),
                        json,
                        null);
            default ->
                new CtlException(
                        "%s answered %s with HTTP %d: %s".formatted(at, request, r.status(), said),
                        List.of(),
                        json,
                        null);
        };
    }

    private String tokenOrigin() {
        return LeaderResolver.DEFAULT_SOURCE.equals(target.tokenSource()) ? "" : " (from " + target.tokenSource() + ")";
    }

    static Optional<ApiError> apiError(String body) {
        try {
            JsonNode tree = Leader.JSON.readTree(body);
            if (tree != null && tree.isObject() && tree.has("error")) {
                return Optional.of(Leader.JSON.treeToValue(tree, ApiError.class));
            }
        } catch (JsonProcessingException | IllegalArgumentException e) {
            // Not an ApiError: the message quotes the body instead.
        }
        return Optional.empty();
    }

    private static String excerpt(String body) {
        String b = body.strip();
        if (b.isEmpty()) {
            return "no explanation";
        }
        String line = b.lines().findFirst().orElse("");
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
