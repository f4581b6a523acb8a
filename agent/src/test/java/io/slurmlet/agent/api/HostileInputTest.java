package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.STATE_DIR;
import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.leader.Inventory;
import io.slurmlet.agent.leader.PlanPublisher;
import io.slurmlet.agent.leader.SettingsStore;
import io.slurmlet.agent.leader.plan.Planner;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.settings.SettingKey;
import io.slurmlet.model.settings.SlurmSettings;
import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A fuzzer over every boundary where a machine, an account or a typo sends data: the admin API
 * (settings, facts, accounts), the agents' channel (join, facts, status, plan) and the accounts.
 * Each request is one of a few shapes with one field made hostile (line breaks, quotes,
 * backslashes, control characters, lone surrogates, bidirectional controls, wrong JSON types,
 * huge or broken bodies), from a fixed seed ({@code -Dslurmlet.fuzz.seed}, rounds with
 * {@code -Dslurmlet.fuzz.rounds}). It holds: no answer is a 5xx; every call answers within its
 * timeout; a refused call stores nothing (the state files are byte for byte as before); and every
 * file the planner renders from what was stored reads, with Slurm's and sshd's rules, as exactly
 * what slurmlet meant. The counts by request class and status are printed.
 */
@QuarkusTest
class HostileInputTest {

    static final long SEED = Long.getLong("slurmlet.fuzz.seed", 20261201L);
    static final int ROUNDS = Integer.getInteger("slurmlet.fuzz.rounds", 1500);
    static final Duration CALL = Duration.ofSeconds(20);
    /** The tests' leader keeps its state across runs: e-mails of this run's own. */
    static final String RUN = Long.toString(System.currentTimeMillis() % 1_000_000, 36);

    /** Strings that end a line, start another, close a quote, join a line, or are not text. */
    static final List<String> HOSTILE = List.of(
            "\n",
            "\r\n",
            "\nPrologSlurmctld=/tmp/evil\n#",
            "\" AuthType=\"auth/none",
            "\\",
            "\\\n",
            "#",
            "\t",
            "\u0000",
            "\u0007",
            "\u001b[2J",
            "\ud800",
            "\udc00",
            "\u2028",
            "\u2029",
            "\u202e",
            "\u2066",
            "\ufeff",
            "\uffff",
            ":0:0:",
            "$(id)",
            "`id`",
            "'",
            "\"",
            " ",
            "",
            ",",
            "=",
            "*",
            "..",
            "/",
            "%00",
            "é",
            "😀",
            "ALL",
            "DEFAULT",
            "x".repeat(300),
            "n1,n2",
            "n[1-4]");

    @Inject
    LeaderChannel leader;

    @Inject
    SettingsStore settings;

    @Inject
    Inventory inventory;

    final Map<String, Map<Integer, Integer>> counts = new TreeMap<>();
    Random random;
    HttpClient tls;
    String credential;
    String controllerCredential;
    final List<String> recent = new ArrayList<>();
    /** Each machine's last facts the leader took, or refused only for changing too often (429): valid facts. */
    final Map<String, String> lastValidFacts = new TreeMap<>();

    @Test
    void noBoundaryAnswers5xxStoresWhatItRefusedOrRendersALineOtherThanMeant() throws Exception {
        random = new Random(SEED);
        reset(
                "{\"enabled\": true, \"controller\": \"fz-ctl\", \"nodes\": [\"fz-ctl\", \"fz-n1\"], \"lent\": [\"fz-n1\"], "
                        + "\"slurm_conf\": {\"MaxJobCount\": \"50000\"}}");
        tls = TestAgents.client();
        String token = admin().contentType("application/json")
                .body("{\"description\": \"fuzz\"}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .extract()
                .path("token");
        credential = joined("fz-n1");
        controllerCredential = joined("fz-ctl");
        for (int round = 0; round < ROUNDS; round++) {
            switch (random.nextInt(10)) {
                case 0, 1 -> settingsPatch();
                case 2 -> settingsPut();
                case 3 -> agentFacts("controller facts PUT", "fz-ctl", controllerCredential);
                case 4 -> agentFacts("agent facts PUT", "fz-n1", credential);
                case 5 -> join(token);
                case 6 -> agentStatus();
                case 7 -> plan();
                case 8 -> account();
                default -> accountsImport();
            }
        }
        // As agents do, each machine reports its last valid facts again after the leader's Retry-After until they are
        // taken: a change refused for coming too soon (slurmlet.leader.facts-change-interval) is not the one that
        // stays.
        for (var last : lastValidFacts.entrySet()) {
            reportUntilTaken(
                    last.getKey(), last.getValue(), last.getKey().equals("fz-ctl") ? controllerCredential : credential);
        }
        // What was accepted (site lines, names, facts, accounts) rendered on a cluster that runs.
        admin().contentType("application/merge-patch+json")
                .body(
                        "{\"enabled\": true, \"controller\": \"fz-ctl\", "
                                + "\"nodes\": [\"fz-ctl\", \"fz-n1\"], \"lent\": [\"fz-n1\"], \"all_nodes\": false, \"experimental\": null}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
        int[] rendered = assertRendersAsMeant();
        StringBuilder summary = new StringBuilder("HostileInputTest: seed " + SEED + ", " + ROUNDS + " requests; "
                + rendered[0] + " rendered files of " + rendered[1] + " lines read as Slurm reads them, "
                + rendered[2] + " accounts' keys as OpenSSH's ssh-keygen reads them:");
        counts.forEach((what, byStatus) ->
                summary.append("\n  ").append(what).append(' ').append(byStatus));
        System.out.println(summary);
    }

    // ---------------------------------------------------------------- request classes

    void settingsPatch() throws IOException {
        SettingKey key = SettingKey.values()[random.nextInt(SettingKey.values().length)];
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        List<String> path = key.path();
        ObjectNode at = patch;
        for (int i = 0; i < path.size() - 1; i++) {
            at = at.putObject(path.get(i));
        }
        String last = path.get(path.size() - 1);
        if (key == SettingKey.SLURM_CONF) {
            ObjectNode map = at.putObject(last);
            if (random.nextBoolean()) {
                map.set(hostile("KillWait"), value());
            } else {
                map.set(
                        pick(List.of(
                                "KillWait", "MailProg", "SchedulerParameters", "AuthType", "Include", "maxjobcount")),
                        value());
            }
        } else if (key.kind() == SettingKey.Kind.LIST) {
            at.putArray(last).add(hostile("fz-n1")).add(random.nextBoolean() ? "fz-n1" : hostile("fz-ctl"));
        } else {
            at.set(last, value());
        }
        adminWrite(
                "settings PATCH",
                () -> admin().contentType("application/merge-patch+json")
                        .body(json(patch))
                        .patch("/v1/slurm/settings"));
    }

    void settingsPut() throws IOException {
        String doc = admin().get("/v1/slurm/settings").asString();
        JsonNode tree = SettingsJson.STRICT.readTree(doc);
        String body = json(tree.get("settings"));
        String sent = switch (random.nextInt(4)) {
            case 0 -> body.substring(0, random.nextInt(body.length()));
            case 1 -> body.replaceFirst("\"fz-n1\"", Matcher.quoteReplacement(json(hostile("fz-n1"))));
            case 2 -> "{\"nodes\": " + "[".repeat(2000) + "]".repeat(2000) + "}";
            default -> body.replaceFirst("\\{", Matcher.quoteReplacement("{" + json(hostile("x")) + ": 1, "));
        };
        adminWrite(
                "settings PUT",
                () -> admin().contentType("application/json")
                        .header("If-Match", "\"" + tree.get("revision") + "\"")
                        .body(sent.getBytes(StandardCharsets.UTF_8))
                        .put("/v1/slurm/settings"));
    }

    void agentFacts(String what, String node, String bearer) throws Exception {
        String body = facts(node);
        byte[] before = state("inventory");
        int status = agent(what, "PUT", "/v1/agent/facts", body, bearer);
        if (status >= 400) {
            assertStateUnchanged("inventory", before, what + " " + body);
        }
        if (status == 200 || status == 429) {
            lastValidFacts.put(node, body);
        }
    }

    /** {@code body} reported as {@code node}'s facts until the leader takes them, waiting its Retry-After between. */
    void reportUntilTaken(String node, String body, String bearer) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            HttpResponse<String> r = tls.send(
                    HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + leader.agentPort() + "/v1/agent/facts"))
                            .timeout(CALL)
                            .header("Content-Type", "application/json")
                            .header("Authorization", "Bearer " + bearer)
                            .PUT(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return;
            }
            assertEquals(429, r.statusCode(), () -> node + "'s facts " + body + ": " + r.body());
            assertTrue(System.nanoTime() < until, () -> node + "'s facts still refused after 60 s: " + r.body());
            // A fixed wait: the rate limit's interval, as the leader's Retry-After gives it; asked sooner, it refuses
            // again.
            Thread.sleep(Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow()) * 1000);
        }
    }

    void join(String token) throws Exception {
        String name = random.nextBoolean() ? hostileName() : "fz-n1";
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        switch (random.nextInt(4)) {
            case 0 -> body.put("node", name);
            case 1 -> body.set("node", value());
            case 2 -> body.put("node", name).put(hostile("extra"), 1);
            default -> body.putArray("node").add(name);
        }
        byte[] before = state("agents");
        int status =
                agent("join POST", "POST", "/v1/join", json(body), random.nextInt(5) == 0 ? hostile(token) : token);
        if (status >= 400) {
            assertStateUnchanged("agents", before, "join " + body);
        }
    }

    void agentStatus() throws Exception {
        String body = """
                {"node": %s, "plan_revision": %s, "steps": [{"step": %s, "state": "failed", "detail": %s, "at": "", "last_error": %s,
                 "last_error_at": ""}], "slurm_nodes": [{"name": "fz-n1", "state": %s, "reason": %s, "jobs": [%s]}]}""".formatted(
                        json(hostile("fz-n1")),
                        random.nextBoolean() ? "1" : json(hostile("1")),
                        json(hostile("munge")),
                        json(hostile("d")),
                        json(hostile("e")),
                        json(hostile("IDLE")),
                        json(hostile("r")),
                        json(hostile("7")));
        agent("agent status PUT", "PUT", "/v1/agent/status", body, credential);
    }

    void plan() throws Exception {
        agent(
                "agent plan GET",
                "GET",
                "/v1/agent/plan?after=" + encode(hostile("0")) + "&wait="
                        + encode(random.nextBoolean() ? "0" : hostile("0")),
                null,
                random.nextBoolean() ? credential : hostile(credential));
    }

    void account() throws IOException {
        String local = "fz" + RUN + random.nextInt(1_000_000);
        String email = random.nextBoolean() ? hostile(local + "@example.org") : local + "@example.org";
        String key = random.nextBoolean() ? hostile(key() + " fuzz") : key() + hostile(" fuzz");
        String body = "{\"email\": %s, \"ssh_keys\": [%s]}".formatted(json(email), json(key));
        adminWrite(
                "account POST",
                () -> admin().contentType("application/json")
                        .body(body.getBytes(StandardCharsets.UTF_8))
                        .post("/v1/users"));
    }

    void accountsImport() throws IOException {
        String body = "{\"accounts\": [{\"email\": %s, \"ssh_keys\": [%s]}, {\"email\": \"fzimport%s%d@example.org\"}]}"
                .formatted(
                        json(hostile("fzi" + RUN + random.nextInt(1000) + "@example.org")),
                        json(random.nextBoolean() ? hostile(key() + " fuzz") : key() + hostile(" fuzz")),
                        RUN,
                        random.nextInt(1_000_000));
        adminWrite(
                "accounts import POST",
                () -> admin().contentType("application/json")
                        .body(body.getBytes(StandardCharsets.UTF_8))
                        .post("/v1/users/import"));
    }

    // ---------------------------------------------------------------- assertions

    /** Calls the admin API; a refusal must leave settings, accounts and inventory exactly as they were. */
    void adminWrite(String what, java.util.function.Supplier<Response> call) throws IOException {
        Map<String, byte[]> before = new TreeMap<>();
        for (String f : List.of("settings.json", "accounts.json", "inventory")) {
            before.put(f, state(f));
        }
        Response r = call.get();
        count(what, r.statusCode());
        assertTrue(r.statusCode() < 500, () -> what + " answered " + r.statusCode() + ": " + r.asString());
        if (r.statusCode() >= 400) {
            for (var e : before.entrySet()) {
                assertStateUnchanged(e.getKey(), e.getValue(), what + " refused with " + r.asString());
            }
        }
    }

    int agent(String what, String method, String path, String body, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + leader.agentPort() + path))
                .timeout(CALL)
                .header("Content-Type", "application/json");
        String auth = "Bearer " + bearer;
        if (auth.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            b.header("Authorization", auth);
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r;
        try {
            r = tls.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(
                    "%s %s %s with %s, bearer %s: no answer (%s); before: %s"
                            .formatted(what, method, path, body, io.slurmlet.model.text.Text.quote(bearer), e, recent),
                    e);
        }
        count(what, r.statusCode());
        recent.add(what + " " + path + " " + r.statusCode() + " "
                + r.headers().firstValue("connection").orElse(""));
        if (recent.size() > 4) {
            recent.remove(0);
        }
        assertTrue(r.statusCode() < 500, () -> what + " answered " + r.statusCode() + ": " + r.body());
        return r.statusCode();
    }

    static void assertStateUnchanged(String file, byte[] before, String context) throws IOException {
        assertEquals(
                new String(before, StandardCharsets.UTF_8),
                new String(state(file), StandardCharsets.UTF_8),
                file + " changed though the call was refused: " + context);
    }

    /**
     * What the planner renders from the stored settings, facts and accounts reads as meant: every
     * Slurm file line by line as Slurm's parser takes it (no continuation, no comment inside a
     * line, every quote closed, only {@code Key=Value} words), each site line exactly the setting,
     * no key slurmlet owns on more than one line; every account's keys one authorized_keys line each.
     */
    int[] assertRendersAsMeant() throws IOException {
        SlurmSettings s = settings.current().settings();
        Map<String, NodeFacts> facts = inventory.all();
        Planner.Plans plans = Planner.plan(s, facts, PlanPublisher.mungeKey(STATE_DIR));
        int files = 0;
        int lines = 0;
        for (NodePlan plan : plans.nodes().values()) {
            for (var file : plan.files().entrySet()) {
                files++;
                lines += file.getValue().split("\n").length;
                if (file.getKey().startsWith("/etc/slurm/") && file.getKey().endsWith(".conf")) {
                    assertSlurmFileAsMeant(file.getKey(), file.getValue(), s);
                } else {
                    assertTrue(
                            file.getValue().chars().noneMatch(c -> c != '\n' && Character.isISOControl(c)),
                            () -> file.getKey() + " holds a control character");
                }
            }
        }
        assertTrue(files >= 4, "the cluster rendered its files: " + plans.problems());
        Accounts accounts = SettingsJson.STRICT.readValue(state("accounts.json"), Accounts.class);
        java.io.ByteArrayOutputStream authorizedKeys = new java.io.ByteArrayOutputStream();
        List<String> meant = new ArrayList<>();
        for (Account a : accounts.accounts()) {
            authorizedKeys.writeBytes(io.slurmlet.agent.users.UsersDiff.authorizedKeys(a));
            for (String k : a.sshKeys()) {
                // A line that starts with its type holds no options (command=, from=, …) for sshd.
                assertTrue(
                        k.matches(
                                "(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+( .*)?"),
                        () -> "sshd would read " + a.login() + "'s key as options or another key: " + k);
                meant.add(fingerprint(k));
            }
            assertTrue(
                    a.email().chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ':'),
                    () -> "passwd's comment: " + a.email());
        }
        // OpenSSH's own parser reads the accounts' files back: one key per key meant, in order.
        List<String> read = sshKeygenFingerprints(authorizedKeys.toByteArray());
        assertEquals(meant, read, "ssh-keygen reads the authorized_keys lines as the keys slurmlet meant");
        return new int[] {files, lines, accounts.accounts().size()};
    }

    /** What {@code ssh-keygen -l} prints for a key: SHA256 of its blob, in unpadded base64. */
    static String fingerprint(String key) {
        try {
            byte[] blob = Base64.getDecoder().decode(key.split(" ")[1]);
            return "SHA256:"
                    + Base64.getEncoder()
                            .withoutPadding()
                            .encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                                    .digest(blob));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The keys OpenSSH reads from an authorized_keys file, each by its fingerprint, in order. */
    static List<String> sshKeygenFingerprints(byte[] file) throws IOException {
        Path keys = Files.createTempFile("authorized_keys", "");
        try {
            Files.write(keys, file);
            if (file.length == 0) {
                return List.of();
            }
            Process p = new ProcessBuilder("ssh-keygen", "-l", "-E", "sha256", "-f", keys.toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), "ssh-keygen -l: " + out);
            return out.lines().map(l -> l.split(" ")[1]).toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } finally {
            Files.delete(keys);
        }
    }

    static final Pattern PAIR = Pattern.compile("([A-Za-z][A-Za-z0-9]*)=(\"[^\"\\\\#]*\"|[^\\s\"\\\\#]+)");
    static final Set<String> REPEATED = Set.of("nodename", "partitionname", "name", "nodeset");

    static void assertSlurmFileAsMeant(String file, String text, SlurmSettings s) {
        Map<String, Integer> firstKeys = new TreeMap<>();
        Map<String, String> site = new TreeMap<>();
        for (String line : text.split("\n", -1)) {
            assertTrue(
                    line.chars().noneMatch(Character::isISOControl), () -> file + ": a control character in " + line);
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            assertTrue(!line.endsWith("\\"), () -> file + ": Slurm joins the next line to " + line);
            Matcher m = PAIR.matcher(line);
            int at = 0;
            String first = null;
            while (at < line.length()) {
                assertTrue(
                        m.find(at) && m.start() == at,
                        () -> file + ": Slurm would not read this line as Key=Value words: " + line);
                if (first == null) {
                    first = m.group(1);
                    String v = m.group(2);
                    site.put(first, v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
                }
                at = m.end();
                if (at < line.length()) {
                    assertEquals(' ', line.charAt(at), file + ": " + line);
                    at++;
                }
            }
            firstKeys.merge(first.toLowerCase(Locale.ROOT), 1, Integer::sum);
        }
        firstKeys.forEach((key, n) ->
                assertTrue(n == 1 || REPEATED.contains(key), () -> file + ": " + key + " on " + n + " lines"));
        if (file.equals("/etc/slurm/slurm.conf")) {
            s.slurmConf().forEach((k, v) -> assertEquals(v, site.get(k), file + ": the site's " + k + " as set"));
        }
    }

    // ---------------------------------------------------------------- values

    String hostile(String around) {
        String h = pick(HOSTILE);
        return switch (random.nextInt(3)) {
            case 0 -> h + around;
            case 1 -> around + h;
            default ->
                around.isEmpty()
                        ? h
                        : around.substring(0, around.length() / 2) + h + around.substring(around.length() / 2);
        };
    }

    String hostileName() {
        return hostile("fz-n" + random.nextInt(9));
    }

    JsonNode value() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (random.nextInt(8)) {
            case 0 -> f.numberNode(random.nextInt());
            case 1 -> f.booleanNode(true);
            case 2 -> f.arrayNode().add(hostile("a"));
            case 3 -> f.objectNode().put("a", hostile("b"));
            case 4 -> f.nullNode();
            default ->
                f.textNode(hostile(pick(
                        List.of("60", "/usr/bin/mail", "bf_interval=30", "fz-n1", "/shared", "n0:/export", "gpu"))));
        };
    }

    String facts(String name) {
        String[] fields = {
            "\"name\": " + json(name),
            "\"address\": \"10.0.0.7\"",
            "\"cpus\": 8",
            "\"boards\": 1",
            "\"sockets\": 1",
            "\"cores_per_socket\": 4",
            "\"threads_per_core\": 2",
            "\"memory_mib\": 32000",
            "\"gpus\": [{\"model\": \"NVIDIA H100\", \"count\": 2}]",
            "\"os\": \"debian 13\"",
            "\"slurm_version\": \"24.11.5\""
        };
        int i = random.nextInt(fields.length + 2);
        if (i < fields.length) {
            String key = fields[i].substring(0, fields[i].indexOf(':'));
            fields[i] = key + ": "
                    + switch (random.nextInt(4)) {
                        case 0 -> json(hostile("10.0.0.7"));
                        case 1 -> Long.toString(random.nextBoolean() ? -5 : Long.MAX_VALUE);
                        case 2 ->
                            "[{\"model\": " + json(hostile("NVIDIA H100")) + ", \"count\": "
                                    + (random.nextInt(200) - 100) + "}]";
                        default -> json(value());
                    };
        }
        return "{" + String.join(", ", fields) + "}";
    }

    String key() {
        byte[] blob = new byte[51];
        blob[3] = 11;
        System.arraycopy("ssh-ed25519".getBytes(StandardCharsets.US_ASCII), 0, blob, 4, 11);
        blob[18] = 32;
        for (int i = 19; i < 51; i++) {
            blob[i] = (byte) random.nextInt();
        }
        return "ssh-ed25519 " + Base64.getEncoder().encodeToString(blob);
    }

    <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    /** JSON with every character outside ASCII escaped: a lone surrogate is sent as {@code \}{@code ud800}, not lost to UTF-8. */
    static final com.fasterxml.jackson.databind.ObjectWriter ESCAPING =
            SettingsJson.STRICT.writer().with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII);

    static String json(Object s) {
        try {
            return ESCAPING.writeValueAsString(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String encode(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    void count(String what, int status) {
        counts.computeIfAbsent(what, k -> new TreeMap<>()).merge(status, 1, Integer::sum);
    }

    /** A file of the leader's state, or a folder's files (names and contents, in order) as one. */
    static byte[] state(String file) throws IOException {
        Path p = STATE_DIR.resolve(file);
        if (Files.isDirectory(p)) {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            try (var files = Files.list(p)) {
                for (Path f : files.sorted().toList()) {
                    all.write((f.getFileName() + "\n").getBytes(StandardCharsets.UTF_8));
                    all.write(Files.readAllBytes(f));
                }
            }
            return all.toByteArray();
        }
        return Files.exists(p) ? Files.readAllBytes(p) : new byte[0];
    }

    /** {@code node}'s credential, joined afresh (an earlier run's machine of that name removed) with plain facts reported. */
    static String joined(String node) throws Exception {
        assertEquals(200, TestAgents.join(node).status());
        TestAgents.Answer facts = TestAgents.reportFacts(
                node,
                SettingsJson.STRICT.writeValueAsString(TestFacts.fourCoresTwoThreads(node)
                        .memoryMiB(32000)
                        .os("debian 13")
                        .slurmVersion("24.11.5")
                        .build()));
        assertEquals(200, facts.status(), facts.body());
        return TestAgents.credential(node);
    }
}
