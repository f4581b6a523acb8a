package io.slurmlet.agent.node;

import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.JoinReply;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.PlanDigest;
import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * An agent's side of the leader's agents' channel: TLS to a leader whose certificate the cluster CA
 * signed, and nothing else; the machine's own credential on every call. The CA itself is fetched
 * once, at join, and kept only if the sha256 of its public key is the pin the site gave.
 */
public final class LeaderLink implements Leader {

    private static final Duration CONNECT = Duration.ofSeconds(10);
    private static final Duration CALL = Duration.ofSeconds(30);

    /** The leader answered with an error: its status, its sentence, and when to ask again if it said. */
    public static final class Refused extends IOException {
        private final int status;
        private final transient Optional<Duration> retryAfter;

        Refused(int status, String message) {
            this(status, message, Optional.empty());
        }

        Refused(int status, String message, Optional<Duration> retryAfter) {
            super(message, null);
            this.status = status;
            this.retryAfter = retryAfter;
        }

        public int status() {
            return status;
        }

        /** How long the leader asked this machine to wait before asking again (its Retry-After); empty when it did not say. */
        public Optional<Duration> retryAfter() {
            return retryAfter;
        }
    }

    /** Every leader-eligible agent's channel, as known at each call; {@link #at} is the one that answered last. */
    private final Supplier<List<URI>> bases;

    private volatile int at;
    /** Whether {@link #bases} follows an election: a call then ends once its leader is no longer named. */
    private final boolean followsElection;

    private final HttpClient client;
    private final String credential;
    /** The window the leader's last plan answer gave ({@link #reconnectWindow()}). */
    private volatile Duration reconnectWindow = Duration.ZERO;

    public LeaderLink(URI base, X509Certificate ca, String credential) throws GeneralSecurityException, IOException {
        this(List.of(base), ca, credential);
    }

    /**
     * A link to whichever of {@code bases} leads: a call that cannot reach one (a standby opens no
     * agents' channel; a leader that died) goes to the next, each tried once per call.
     */
    public LeaderLink(List<URI> bases, X509Certificate ca, String credential)
            throws GeneralSecurityException, IOException {
        this(fixed(bases), false, ca, credential);
    }

    private static Supplier<List<URI>> fixed(List<URI> bases) {
        if (bases.isEmpty()) {
            throw new IllegalArgumentException("no leader's address");
        }
        List<URI> fixed = List.copyOf(bases);
        return () -> fixed;
    }

    /**
     * A link to the leader that {@code bases} names at each call: on a leader-eligible machine, its
     * own agent's channel while it leads, else the one the election names. None known: the call
     * fails, to be tried again. A call waiting on a leader that {@code bases} no longer names (it was
     * cut off, or its machine died, and another was elected) is given up at once, rather than when
     * its time runs out (a long poll's: its wait and 30 s).
     */
    public LeaderLink(Supplier<List<URI>> bases, X509Certificate ca, String credential)
            throws GeneralSecurityException, IOException {
        this(bases, true, ca, credential);
    }

    private LeaderLink(Supplier<List<URI>> bases, boolean followsElection, X509Certificate ca, String credential)
            throws GeneralSecurityException, IOException {
        this.bases = bases;
        this.followsElection = followsElection;
        this.client = client(trusting(ca));
        this.credential = credential;
    }

    /** The leader's addresses as agent.yaml gives them: one URL, or several separated by commas (every leader-eligible agent's). */
    public static List<URI> addresses(String configured) {
        return Arrays.stream(configured.split(","))
                .map(String::strip)
                .filter(a -> !a.isEmpty())
                .map(URI::create)
                .toList();
    }

    /** An answer, and the address that gave it. */
    private record Answered<T>(URI base, HttpResponse<T> response) {}

    /** One exchange with the leader that answered last, else each other in turn; the last failure when none could be reached. */
    private Answered<byte[]> call(Function<URI, HttpRequest> request) throws IOException, InterruptedException {
        return call(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private <T> Answered<T> call(Function<URI, HttpRequest> request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        List<URI> now = bases.get();
        if (now.isEmpty()) {
            throw new IOException("no leader is known yet (the leader-eligible agents' election names none)");
        }
        IOException last = null;
        int first = at % now.size();
        for (int tried = 0; tried < now.size(); tried++) {
            int i = (first + tried) % now.size();
            try {
                URI base = now.get(i);
                HttpResponse<T> r = exchange(
                        client,
                        base,
                        request.apply(base),
                        body,
                        followsElection ? () -> bases.get().contains(base) : null);
                if (i != at) {
                    at = i;
                }
                return new Answered<>(now.get(i), r);
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * A file the leader serves at {@code path} (a file of jobs in containers it holds), from whichever
     * leader answers: its bytes as they come, for the caller to bound, time and check.
     */
    @Override
    public InputStream open(String path, Duration timeout) throws IOException, InterruptedException {
        Answered<InputStream> answered = call(
                base -> request(base, path).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        HttpResponse<InputStream> response = answered.response();
        if (response.statusCode() != 200) {
            byte[] said;
            try (InputStream in = response.body()) {
                said = in.readNBytes(64 * 1024);
            }
            checked(answered.base(), path, response.statusCode(), said);
        }
        return response.body();
    }

    /**
     * Fetches the leader's CA and keeps it only if its pin matches {@code caHash}: what a new
     * machine does before it trusts anything the leader says.
     */
    public static X509Certificate fetchPinnedCa(URI base, String caHash) throws IOException, InterruptedException {
        try {
            HttpClient open = client(trustingAnything());
            HttpResponse<byte[]> response = exchange(
                    open,
                    base,
                    HttpRequest.newBuilder(base.resolve("/v1/join/ca"))
                            .timeout(CALL)
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
        HttpClient client = client(trusting(ca));
        HttpResponse<byte[]> response = exchange(
                client,
                base,
                HttpRequest.newBuilder(base.resolve("/v1/join"))
                        .timeout(CALL)
                        .header("Authorization", "Bearer " + joinToken.strip())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(
                                SettingsJson.STRICT.writeValueAsBytes(Map.of("node", node))))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        checked(base, "/v1/join", response);
        return SettingsJson.STRICT.readValue(response.body(), JoinReply.class);
    }

    /**
     * A join token from the leader at {@code base}, asked for with this standby's own credential
     * (a client certificate of the cluster's CA) through its agents' channel ({@code
     * /v1/admin-forward}, which answers it from the leader's own admin API): how a standby's own node
     * role joins, holding the cluster's secrets but no credential of its machine's yet. Valid 10
     * minutes; the leader logs it as made by this standby.
     */
    public static String joinTokenFromLeader(URI base, X509Certificate ca, Pki.StandbyCredential standby, String node)
            throws IOException, InterruptedException, GeneralSecurityException {
        String path = LeaderChannel.ADMIN_FORWARD + "/v1/join-tokens";
        HttpResponse<byte[]> response = exchange(
                client(showing(ca, standby)),
                base,
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(CALL)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(SettingsJson.STRICT.writeValueAsBytes(
                                Map.of("ttl", "10m", "description", "the node role of leader-eligible " + node))))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        checked(base, path, response);
        String token =
                SettingsJson.STRICT.readValue(response.body(), JoinInfo.class).token();
        if (token == null || token.isBlank()) {
            throw new IOException("the leader at %s made a join token but its answer holds none".formatted(base));
        }
        return token;
    }

    @Override
    public void reportFacts(NodeFacts facts) throws IOException, InterruptedException {
        send("/v1/agent/facts", "PUT", facts);
    }

    @Override
    public void postStatus(NodeReport report) throws IOException, InterruptedException {
        send("/v1/agent/status", "PUT", report);
    }

    /**
     * This machine's plan if the leader has another revision than {@code held}; empty when none
     * came within {@code wait} (the leader holds the call that long).
     */
    @Override
    public Optional<PublishedPlan> poll(long held, Duration wait) throws IOException, InterruptedException {
        return poll(held, "", wait);
    }

    @Override
    public Optional<PublishedPlan> poll(Optional<PublishedPlan> held, Duration wait)
            throws IOException, InterruptedException {
        return held.isEmpty()
                ? poll(0, "", wait)
                : poll(
                        held.get().revision(),
                        "&digest=" + PlanDigest.of(held.get().plan()),
                        wait);
    }

    private Optional<PublishedPlan> poll(long held, String digest, Duration wait)
            throws IOException, InterruptedException {
        String path = "/v1/agent/plan?after=" + held + "&wait=" + wait.toSeconds() + digest;
        Answered<byte[]> answered =
                call(base -> request(base, path).timeout(wait.plus(CALL)).GET().build());
        HttpResponse<byte[]> response = answered.response();
        response.headers().firstValue(LeaderChannel.RECONNECT_WINDOW).ifPresent(w -> reconnectWindow = window(w));
        if (response.statusCode() == 204) {
            return Optional.empty();
        }
        checked(answered.base(), path, response);
        return Optional.of(SettingsJson.STRICT.readValue(response.body(), PublishedPlan.class));
    }

    @Override
    public Duration reconnectWindow() {
        return reconnectWindow;
    }

    /** The longest reconnection window taken from a leader: a machine away from it longer than this is not spread further. */
    public static final Duration LONGEST_WINDOW = Duration.ofMinutes(10);

    /** A leader's window as its header gives it, in whole seconds; what is not one is taken as none. */
    static Duration window(String seconds) {
        try {
            long s = Long.parseLong(seconds.strip());
            return s <= 0 ? Duration.ZERO : s >= LONGEST_WINDOW.toSeconds() ? LONGEST_WINDOW : Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }

    private void send(String path, String method, Object body) throws IOException, InterruptedException {
        byte[] json = SettingsJson.STRICT.writeValueAsBytes(body);
        Answered<byte[]> answered = call(base -> request(base, path)
                .timeout(CALL)
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofByteArray(json))
                .build());
        checked(answered.base(), path, answered.response());
    }

    private HttpRequest.Builder request(URI base, String path) {
        return HttpRequest.newBuilder(base.resolve(path)).header("Authorization", "Bearer " + credential);
    }

    /** One request; a leader that cannot be reached is said so, with the address and the reason. */
    private static <T> HttpResponse<T> exchange(
            HttpClient client, URI base, HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        return exchange(client, base, request, body, null);
    }

    /** How often a call to a leader an election named looks whether it still names it. */
    public static final Duration LOOK = Duration.ofMillis(250);

    /** {@link #exchange(HttpClient, URI, HttpRequest, HttpResponse.BodyHandler)}, given up once {@code named} (if given) is false. */
    private static <T> HttpResponse<T> exchange(
            HttpClient client, URI base, HttpRequest request, HttpResponse.BodyHandler<T> body, BooleanSupplier named)
            throws IOException, InterruptedException {
        try {
            return named == null
                    ? client.send(request, body)
                    : whileNamed(client.sendAsync(request, body), base, named);
        } catch (ConnectException e) {
            throw new IOException(
                    "cannot reach the leader at %s: connection refused (is slurmlet-agent running there, "
                                    .formatted(base)
                            + "and is port " + base.getPort() + " open to this machine?)",
                    e);
        } catch (HttpTimeoutException e) {
            throw new IOException("the leader at %s did not answer in time".formatted(base), e);
        } catch (SSLException e) {
            throw new IOException(
                    "TLS with the leader at %s failed: %s (a leader whose certificate the pinned CA did not sign "
                                    .formatted(base, e.getMessage())
                            + "is refused)",
                    e);
        } catch (IOException e) {
            throw new IOException(
                    "the exchange with the leader at %s failed: %s"
                            .formatted(
                                    base, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
                    e);
        }
    }

    private static <T> HttpResponse<T> whileNamed(
            CompletableFuture<HttpResponse<T>> answer, URI base, BooleanSupplier named)
            throws IOException, InterruptedException {
        try {
            while (true) {
                try {
                    return answer.get(LOOK.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (!named.getAsBoolean()) {
                        answer.cancel(true);
                        throw new IOException("given up: the election names another leader than " + base + " now");
                    }
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        }
    }

    private static void checked(URI base, String path, HttpResponse<byte[]> response) throws Refused {
        checked(
                base,
                path,
                response.statusCode(),
                response.body(),
                response.headers().firstValue("Retry-After").flatMap(LeaderLink::retryAfter));
    }

    private static void checked(URI base, String path, int status, byte[] body) throws Refused {
        checked(base, path, status, body, Optional.empty());
    }

    /**
     * A leader's Retry-After in whole seconds, up to {@link #LONGEST_WINDOW}; empty for what is not
     * one (an HTTP date, which no leader sends, included).
     */
    static Optional<Duration> retryAfter(String seconds) {
        Duration d = window(seconds);
        return d.isZero() ? Optional.empty() : Optional.of(d);
    }

    private static void checked(URI base, String path, int status, byte[] body, Optional<Duration> retryAfter)
            throws Refused {
        if (status / 100 == 2) {
            return;
        }
        String message;
        try {
            message = SettingsJson.STRICT.readValue(body, ApiError.class).error();
        } catch (IOException e) {
            message = new String(body, StandardCharsets.UTF_8).strip();
        }
        throw new Refused(
                status,
                "the leader at %s refused %s (%d): %s".formatted(base, path.replaceAll("\\?.*", ""), status, message),
                retryAfter);
    }

    private static HttpClient client(SSLContext ssl) {
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(CONNECT)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** TLS that trusts the cluster's CA {@code ca} alone. */
    public static SSLContext trusting(X509Certificate ca) throws GeneralSecurityException, IOException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers(ca), null);
        return context;
    }

    private static TrustManager[] trustManagers(X509Certificate ca) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("slurmlet-ca", ca);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }

    /** Trusting {@code ca}, and showing {@code standby}'s certificate when the leader asks for one. */
    public static SSLContext showing(X509Certificate ca, Pki.StandbyCredential standby)
            throws GeneralSecurityException, IOException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        char[] none = new char[0];
        keys.setKeyEntry("slurmlet-standby", standby.key(), none, new Certificate[] {standby.certificate()});
        KeyManagerFactory keyFactory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyFactory.init(keys, none);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyFactory.getKeyManagers(), trustManagers(ca), null);
        return context;
    }

    /** Only for fetching the CA, which is then checked against the pin before anything is trusted. */
    private static SSLContext trustingAnything() throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(
                null,
                new TrustManager[] {
                    new X509ExtendedTrustManager() {
                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

                        @Override
                        public X509Certificate[] getAcceptedIssuers() {
                            return new X509Certificate[0];
                        }
                    }
                },
                null);
        return context;
    }

    @Override
    public String toString() {
        return "LeaderLink[" + bases.get() + ", credential not shown]";
    }
}
