package io.slurmlet.agent.node;

import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.agent.trust.StandbyCredential;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.JoinReply;
import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Map;

/**
 * The calls of a machine that holds no credential yet: the leader's CA, fetched and kept only if
 * its pin is the site's; the join with a join token, answered with the machine's own credential;
 * and on a standby, a join token asked of the leader with the standby's own certificate.
 */
public final class LeaderJoin {

    private LeaderJoin() {}

    /**
     * Fetches the leader's CA and keeps it only if its pin matches {@code caHash}: what a new
     * machine does before it trusts anything the leader says.
     */
    public static X509Certificate fetchPinnedCa(URI base, String caHash) throws IOException, InterruptedException {
        try {
            HttpClient open = LeaderTls.client(LeaderTls.trustingAnything());
            HttpResponse<byte[]> response = LeaderCalls.exchange(
                    open,
                    base,
                    HttpRequest.newBuilder(base.resolve("/v1/join/ca"))
                            .timeout(LeaderCalls.CALL)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                throw new IOException(
                        "the leader at %s answered %d for its CA: is that the leader's agents' port (7818)?"
                                .formatted(base, response.statusCode()));
            }
            X509Certificate ca = Pki.parseCertificate(response.body());
            String found = Pki.caHash(ca);
            if (!found.equalsIgnoreCase(caHash.strip())) {
                throw new IOException(("the leader at %s shows a CA whose pin is %s, not %s (slurmlet.node.ca-hash): "
                                + "copy the line 'ctl slurm join-token' prints on the leader again; if it is the same, "
                                + "something between this machine and the leader is not the leader")
                        .formatted(base, found, caHash));
            }
            return ca;
        } catch (GeneralSecurityException e) {
            throw new IOException(
                    "the leader at %s sent no usable CA certificate: %s".formatted(base, e.getMessage()), e);
        }
    }

    /** Joins with the join token; the answer holds this machine's own credential. */
    public static JoinReply join(URI base, X509Certificate ca, String joinToken, String node)
            throws IOException, InterruptedException, GeneralSecurityException {
        HttpClient client = LeaderTls.client(LeaderTls.trusting(ca));
        HttpResponse<byte[]> response = LeaderCalls.exchange(
                client,
                base,
                HttpRequest.newBuilder(base.resolve("/v1/join"))
                        .timeout(LeaderCalls.CALL)
                        .header("Authorization", "Bearer " + joinToken.strip())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(
                                SettingsJson.STRICT.writeValueAsBytes(Map.of("node", node))))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        LeaderCalls.checked(base, "/v1/join", response);
        return SettingsJson.STRICT.readValue(response.body(), JoinReply.class);
    }

    /**
     * A join token from the leader at {@code base}, asked for with this standby's own credential
     * (a client certificate of the cluster's CA) through its agents' channel ({@code
     * /v1/admin-forward}, which answers it from the leader's own admin API): how a standby's own node
     * role joins, holding the cluster's secrets but no credential of its machine's yet. Valid 10
     * minutes; the leader logs it as made by this standby.
     */
    public static String joinTokenFromLeader(URI base, X509Certificate ca, StandbyCredential standby, String node)
            throws IOException, InterruptedException, GeneralSecurityException {
        String path = LeaderChannel.ADMIN_FORWARD + "/v1/join-tokens";
        HttpResponse<byte[]> response = LeaderCalls.exchange(
                LeaderTls.client(LeaderTls.showing(ca, standby)),
                base,
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(LeaderCalls.CALL)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(SettingsJson.STRICT.writeValueAsBytes(
                                Map.of("ttl", "10m", "description", "the node role of leader-eligible " + node))))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        LeaderCalls.checked(base, path, response);
        String token =
                SettingsJson.STRICT.readValue(response.body(), JoinInfo.class).token();
        if (token == null || token.isBlank()) {
            throw new IOException("the leader at %s made a join token but its answer holds none".formatted(base));
        }
        return token;
    }
}
