package io.slurmlet.agent.api;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the API tests share: the admin token the leader made, and requests that carry it. */
final class ApiTestSupport {

    static final Path STATE_DIR = Path.of("target/test-state");
    static final String MERGE_PATCH = "application/merge-patch+json";

    private ApiTestSupport() {}

    static String token() {
        try {
            return Files.readString(STATE_DIR.resolve("admin.token")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A request as an admin with the token sends it. */
    static RequestSpecification admin() {
        return RestAssured.given().header("Authorization", "Bearer " + token());
    }

    /** The current revision. */
    static long revision() {
        return admin().get("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getLong("revision");
    }

    /** Replaces the settings with {@code json}, whatever they were. */
    static long reset(String json) {
        return admin().contentType("application/json")
                .header("If-Match", "\"" + revision() + "\"")
                .body(json)
                .put("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getLong("revision");
    }

    static String storedFile() {
        try {
            return Files.readString(STATE_DIR.resolve("settings.json"));
        } catch (IOException e) {
            return "";
        }
    }
}
