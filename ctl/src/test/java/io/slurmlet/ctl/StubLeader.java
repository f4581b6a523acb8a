package io.slurmlet.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A leader that answers canned JSON over TCP (127.0.0.1, a free port) and records every request.
 * Each route answers its replies in turn; the last one repeats. An unknown route answers 404.
 */
final class StubLeader implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();

    /** Settings as a small cluster has them: three nodes, one lent. */
    static final SlurmSettings SETTINGS = new SlurmSettings(
            true,
            "slurmlet",
            "head1",
            List.of("gpu1", "gpu2", "gpu3"),
            false,
            List.of("gpu1"),
            "gpu",
            new SharedStorage("/shared", "", ""),
            "slurmlet",
            false,
            Experimental.NONE);

    /** One request; {@code query} is the URI's query, null for none. */
    record Request(String method, String path, String query, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    record Reply(int status, String body, Map<String, String> headers, long delayMillis) {
        Reply delayed(long millis) {
            return new Reply(status, body, headers, millis);
        }
    }

    static Reply ok(String body) {
        return new Reply(200, body, Map.of(), 0);
    }

    static Reply status(int status, String body) {
        return new Reply(status, body, Map.of(), 0);
    }

    /** 200 with a SettingsDocument and its ETag. */
    static Reply document(long revision, SlurmSettings settings) {
        return new Reply(
                200, json(new SettingsDocument(revision, settings)), Map.of("ETag", "\"" + revision + "\""), 0);
    }

    static Reply refused(String error, Problem... problems) {
        return status(400, json(new ApiError(error, List.of(problems), null)));
    }

    static Reply conflict(long current) {
        return status(409, json(new ApiError("the settings are at revision " + current + " now", List.of(), current)));
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private final HttpServer server;
    private final Map<String, Deque<Reply>> routes = new ConcurrentHashMap<>();
    final List<Request> requests = new CopyOnWriteArrayList<>();

    StubLeader() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers {@code method path} with {@code replies}, one per request, the last one repeating. */
    StubLeader on(String method, String path, Reply... replies) {
        routes.put(method + " " + path, new ArrayDeque<>(List.of(replies)));
        return this;
    }

    List<Request> requests(String method) {
        return requests.stream().filter(r -> r.method().equals(method)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        Map<String, String> headers = new TreeMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.get(0)));
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        requests.add(new Request(method, path, exchange.getRequestURI().getRawQuery(), headers, body));
        Deque<Reply> replies = routes.get(method + " " + path);
        Reply reply;
        if (replies == null) {
            reply = status(404, json(ApiError.of("no such resource: " + method + " " + path)));
        } else {
            synchronized (replies) {
                reply = replies.size() > 1 ? replies.poll() : replies.peek();
            }
        }
        if (reply.delayMillis() > 0) {
            try {
                Thread.sleep(reply.delayMillis()); // a slow leader, as the test asked: the delay is what it tests
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        reply.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
        exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
