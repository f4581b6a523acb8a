package io.slurmlet.agent.node;

import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.PlanDigest;
import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An agent's side of the leader's agents' channel: TLS to a leader whose certificate the cluster CA
 * signed, and nothing else; the machine's own credential on every call. The CA itself is fetched
 * once, at join, and kept only if the sha256 of its public key is the pin the site gave.
 */
public final class LeaderLink implements Leader {

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
        this.client = LeaderTls.client(LeaderTls.trusting(ca));
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
                HttpResponse<T> r = LeaderCalls.exchange(
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
            LeaderCalls.checked(answered.base(), path, response.statusCode(), said);
        }
        return response.body();
    }

    @Override
    public void reportFacts(NodeFacts facts) throws IOException, InterruptedException {
        send("/v1/agent/facts", "PUT", facts);
    }

    @Override
    public Optional<Time> postStatus(NodeReport report) throws IOException, InterruptedException {
        Answered<byte[]> answered = send("/v1/agent/status", "PUT", report);
        return answered.response()
                .headers()
                .firstValue(LeaderChannel.LEADER_TIME)
                .flatMap(LeaderLink::millis)
                .map(at -> new Time(answered.base(), at));
    }

    /** An instant said in milliseconds since the epoch; empty where it is not one. */
    static Optional<Instant> millis(String said) {
        try {
            return Optional.of(Instant.ofEpochMilli(Long.parseLong(said.strip())));
        } catch (NumberFormatException | java.time.DateTimeException e) {
            return Optional.empty();
        }
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
        Answered<byte[]> answered = call(base ->
                request(base, path).timeout(wait.plus(LeaderCalls.CALL)).GET().build());
        HttpResponse<byte[]> response = answered.response();
        response.headers()
                .firstValue(LeaderChannel.RECONNECT_WINDOW)
                .ifPresent(w -> reconnectWindow = LeaderCalls.window(w));
        if (response.statusCode() == 204) {
            return Optional.empty();
        }
        LeaderCalls.checked(answered.base(), path, response);
        return Optional.of(SettingsJson.STRICT.readValue(response.body(), PublishedPlan.class));
    }

    @Override
    public Duration reconnectWindow() {
        return reconnectWindow;
    }

    private Answered<byte[]> send(String path, String method, Object body) throws IOException, InterruptedException {
        byte[] json = SettingsJson.STRICT.writeValueAsBytes(body);
        Answered<byte[]> answered = call(base -> request(base, path)
                .timeout(LeaderCalls.CALL)
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofByteArray(json))
                .build());
        LeaderCalls.checked(answered.base(), path, answered.response());
        return answered;
    }

    private HttpRequest.Builder request(URI base, String path) {
        return HttpRequest.newBuilder(base.resolve(path)).header("Authorization", "Bearer " + credential);
    }

    @Override
    public String toString() {
        return "LeaderLink[" + bases.get() + ", credential not shown]";
    }
}
