package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;

import io.quarkus.arc.Arc;
import io.slurmlet.agent.node.LeaderJoin;
import io.slurmlet.agent.node.LeaderTls;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Machines' agents as the tests play them, on the tests' leader: joined over the agents' channel
 * with a join token of their own, then reporting facts with their credential, as a real agent does.
 */
final class TestAgents {

    /** What the channel answered. */
    record Answer(int status, String body) {
        io.restassured.path.json.JsonPath json() {
            return io.restassured.path.json.JsonPath.from(body);
        }
    }

    private static final Map<String, String> CREDENTIALS = new ConcurrentHashMap<>();

    private TestAgents() {}

    static URI base() {
        return URI.create("https://127.0.0.1:"
                + Arc.container().instance(LeaderChannel.class).get().agentPort());
    }

    private static HttpClient client;

    /** One client for every call: the channel holds at most 32 connections from one address, and each client keeps its own. */
    static synchronized HttpClient client() throws Exception {
        if (client == null) {
            X509Certificate ca = LeaderJoin.fetchPinnedCa(
                    base(), Arc.container().instance(Pki.class).get().caHash());
            client = HttpClient.newBuilder()
                    .sslContext(LeaderTls.trusting(ca))
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
        }
        return client;
    }

    /**
     * {@code node} joins with a new join token; a machine of that name an earlier run of the tests'
     * leader joined (its state is kept) is removed first, and its name allowed again, as an admin would.
     */
    static Answer join(String node) throws Exception {
        forget(node);
        String token = admin().contentType("application/json")
                .body("{\"description\": \"tests\"}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .path("token");
        Answer a = send("POST", "/v1/join", "{\"node\": " + HostileInputTest.json(node) + "}", token);
        if (a.status() == 200) {
            CREDENTIALS.put(node, a.json().getString("credential"));
        }
        return a;
    }

    /**
     * Removes {@code node}, if it joined, and allows its name again: the tests' leader, whose state
     * outlives a run, keeps no machine of a test's and no name refused.
     */
    static void forget(String node) {
        admin().delete("/v1/machines/" + node);
        admin().post("/v1/machines/" + node + "/allow");
    }

    /** The credential {@code node} was given when it joined here. */
    static String credential(String node) {
        return CREDENTIALS.get(node);
    }

    /** {@code node} reports {@code facts} (a JSON object) over the agents' channel, joined first if it has not. */
    static Answer reportFacts(String node, String facts) throws Exception {
        if (!CREDENTIALS.containsKey(node)) {
            Answer joined = join(node);
            if (joined.status() != 200) {
                return joined;
            }
        }
        return send("PUT", "/v1/agent/facts", facts, CREDENTIALS.get(node));
    }

    static Answer send(String method, String path, String body, String bearer) throws Exception {
        HttpResponse<String> r = client().send(
                        HttpRequest.newBuilder(base().resolve(path))
                                .timeout(Duration.ofSeconds(30))
                                .header("Content-Type", "application/json")
                                .header("Authorization", "Bearer " + bearer)
                                .method(method, HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }
}
