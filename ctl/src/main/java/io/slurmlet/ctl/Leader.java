package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.ContainerFile;
import io.slurmlet.model.api.JoinInfo;
import io.slurmlet.model.api.NodeLending;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;
import io.vertx.core.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The leader's REST API as ctl uses it: typed answers, and every refusal turned into a
 * {@link CtlException} a person can act on.
 */
public final class Leader implements AutoCloseable {

    /** Reads answers, tolerating keys a newer leader adds. */
    static final ObjectMapper JSON = SettingsJson.lenient();

    static final String SETTINGS = "/v1/slurm/settings";
    static final String STATUS = "/v1/slurm/status";
    static final String JOIN_TOKENS = "/v1/join-tokens";
    static final String MACHINES = "/v1/machines";
    static final String MUNGE_KEY = "/v1/slurm/munge-key";
    static final String AUTH_KEY = "/v1/slurm/auth-key";
    static final String NODES = "/v1/slurm/nodes";
    static final String USERS = "/v1/users";
    static final String CONTAINER_FILES = "/v1/slurm/containers/files";
    static final String MERGE_PATCH = "application/merge-patch+json";
    static final Map<String, String> JSON_BODY = Map.of("Content-Type", "application/json");
    /** How the leader's 404 for a path it does not serve begins (an older agent's, for one); any other 404 names what is missing. */
    static final String NO_SUCH_RESOURCE = "no such resource";
    /** Asks a write for a preview instead: nothing is stored. */
    static final String DRY_RUN = "?dry_run=true";

    /** How many times a read-then-write is tried when someone else writes in between. */
    static final int ATTEMPTS = 5;

    /**
     * An answer: the value, and the body as the leader sent it (for {@code -o json}).
     */
    public record Answer<T>(T value, JsonNode tree, String body) {}

    /**
     * A read-then-write: the settings read, and what the leader answered to the write; no write
     * when the settings already were as asked.
     */
    public record Change(Answer<SettingsDocument> before, Optional<Answer<SettingsDocument>> after) {}

    private final LeaderClient client;
    private final LeaderAnswers answers;

    public Leader(LeaderClient client, LeaderResolver.Resolved target) {
        this.client = client;
        this.answers = new LeaderAnswers(client, target);
    }

    public Answer<SettingsDocument> settings() {
        return answers.read(
                answers.send(HttpMethod.GET, SETTINGS, Map.of(), null), SettingsDocument.class, "GET " + SETTINGS);
    }

    /** A new join token that works for {@code ttl} (as 24h; null: the leader's default), and the line that joins a machine with it. */
    public Answer<JoinInfo> createJoinToken(String ttl, String description) {
        ObjectNode body = JSON.createObjectNode();
        if (ttl != null) {
            body.put("ttl", ttl);
        }
        if (description != null) {
            body.put("description", description);
        }
        return answers.read(
                answers.refusable(HttpMethod.POST, JOIN_TOKENS, body.toString()),
                JoinInfo.class,
                "POST " + JOIN_TOKENS);
    }

    /** The join tokens the leader keeps, live and recently expired: {@code {"tokens": [...]}}, never their secrets. */
    public Answer<ObjectNode> joinTokens() {
        return answers.read(
                answers.send(HttpMethod.GET, JOIN_TOKENS, Map.of(), null), ObjectNode.class, "GET " + JOIN_TOKENS);
    }

    public Answer<ObjectNode> revokeJoinToken(String id) {
        String path = JOIN_TOKENS + "/" + segment(id);
        return answers.read(answers.refusable(HttpMethod.DELETE, path, null), ObjectNode.class, "DELETE " + path);
    }

    /** The files of jobs in containers the leader holds for machines to fetch from it; none from a leader older than import. */
    public Answer<List<ContainerFile>> containerFiles() {
        LeaderClient.Response r = client.send(HttpMethod.GET, CONTAINER_FILES, Map.of(), (String) null);
        if (r.status() == 404
                && LeaderAnswers.apiError(r.body())
                        .map(ApiError::error)
                        .orElse("")
                        .startsWith(NO_SUCH_RESOURCE)) {
            return new Answer<>(List.of(), JSON.createArrayNode(), "[]");
        }
        if (!r.ok()) {
            throw answers.refusal("GET " + CONTAINER_FILES, r);
        }
        return answers.read(
                r,
                JSON.getTypeFactory().constructCollectionType(List.class, ContainerFile.class),
                "GET " + CONTAINER_FILES);
    }

    /**
     * Hands {@code bytes} to the leader as its table's file {@code file}; {@code sha256}: the digest
     * its publisher lists, where the leader's table pins none.
     */
    public Answer<ContainerFile> importContainerFile(String file, byte[] bytes, Optional<String> sha256) {
        String path = CONTAINER_FILES + "/" + segment(file)
                + sha256.map(s -> "?sha256=" + s).orElse("");
        LeaderClient.Response r =
                client.send(HttpMethod.PUT, path, Map.of("Content-Type", "application/octet-stream"), bytes);
        if (!r.ok()) {
            throw answers.refusal("PUT " + CONTAINER_FILES + "/" + file, r);
        }
        return answers.read(r, ContainerFile.class, "PUT " + path);
    }

    /**
     * The machines that have joined, and those removed (none from a leader older than removals):
     * {@code {"machines": [...], "removed": [{"node", "removed", "by", "join_token"}]}}.
     */
    public Answer<ObjectNode> machines() {
        return answers.read(
                answers.send(HttpMethod.GET, MACHINES, Map.of(), null), ObjectNode.class, "GET " + MACHINES);
    }

    /**
     * Removes a machine: its name refused until allowed, its credential and the join token it joined
     * with revoked, its facts forgotten; the answer's {@code notes} say what was done.
     */
    public Answer<ObjectNode> removeMachine(String node) {
        String path = MACHINES + "/" + segment(node);
        return answers.read(answers.refusable(HttpMethod.DELETE, path, null), ObjectNode.class, "DELETE " + path);
    }

    /**
     * The cluster's munge key: its rotation and which machines hold it,
     * {@code {"rotation", "switch_at", "requested", "by", "machines": [{"node", "holds", "state"}]}}; never the key.
     */
    public Answer<ObjectNode> mungeKey() {
        return answers.read(
                answers.send(HttpMethod.GET, MUNGE_KEY, Map.of(), null), ObjectNode.class, "GET " + MUNGE_KEY);
    }

    /**
     * Rolls a new munge key to every machine, switched to at one moment; the answer is {@link #mungeKey()}'s, with {@code notes}.
     *
     * @param underJobs go on while jobs run (the leader refuses otherwise: a job ending at the switch can be requeued)
     */
    public Answer<ObjectNode> rotateMungeKey(boolean underJobs) {
        String path = MUNGE_KEY + "/rotate" + (underJobs ? "?under_jobs=true" : "");
        return answers.read(answers.refusable(HttpMethod.POST, path, null), ObjectNode.class, "POST " + path);
    }

    /**
     * Slurm's own keys under auth=slurm: their generation, where a rotation is and what each daemon loaded,
     * {@code {"auth", "generation", "phase", "since", "signing_kid", "kids", "rotation", "requested", "by",
     * "next_step", "machines": [{"node", "daemons": {unit: said}}]}}; never a key.
     */
    public Answer<ObjectNode> authKey() {
        return answers.read(
                answers.send(HttpMethod.GET, AUTH_KEY, Map.of(), null), ObjectNode.class, "GET " + AUTH_KEY);
    }

    /** Begins a rotation of Slurm's own keys, in three phases; the answer is {@link #authKey()}'s, with {@code notes}. */
    public Answer<ObjectNode> rotateAuthKey() {
        String path = AUTH_KEY + "/rotate";
        return answers.read(answers.refusable(HttpMethod.POST, path, null), ObjectNode.class, "POST " + path);
    }

    /** Lets a removed machine's name join again. */
    public Answer<ObjectNode> allowMachine(String node) {
        String path = MACHINES + "/" + segment(node) + "/allow";
        return answers.read(answers.refusable(HttpMethod.POST, path, null), ObjectNode.class, "POST " + path);
    }

    public Answer<SlurmStatus> status() {
        return answers.read(answers.send(HttpMethod.GET, STATUS, Map.of(), null), SlurmStatus.class, "GET " + STATUS);
    }

    /** Every node's lending: its phase, what it waits for, its last error, Slurm's view of it. */
    public Answer<List<NodeLending>> nodes() {
        return answers.read(
                answers.send(HttpMethod.GET, NODES, Map.of(), null),
                JSON.getTypeFactory().constructCollectionType(List.class, NodeLending.class),
                "GET " + NODES);
    }

    /** PATCH with an RFC 7396 merge patch; with {@code ifMatch}, only onto that revision. */
    public Answer<SettingsDocument> patch(ObjectNode patch, OptionalLong ifMatch) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", MERGE_PATCH);
        ifMatch.ifPresent(rev -> headers.put("If-Match", "\"" + rev + "\""));
        return answers.read(
                answers.send(HttpMethod.PATCH, SETTINGS, headers, patch.toString()),
                SettingsDocument.class,
                "PATCH " + SETTINGS);
    }

    /**
     * PATCH with {@code ?dry_run=true}: what the merge patch would do on each machine, judged as the
     * write would be; the leader stores nothing.
     */
    public Answer<SettingsPreview> previewPatch(ObjectNode patch, OptionalLong ifMatch) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", MERGE_PATCH);
        ifMatch.ifPresent(rev -> headers.put("If-Match", "\"" + rev + "\""));
        return answers.read(
                answers.send(HttpMethod.PATCH, SETTINGS + DRY_RUN, headers, patch.toString()),
                SettingsPreview.class,
                "PATCH " + SETTINGS + DRY_RUN);
    }

    /** Every account, removed ones too, with the list's revision and the next UID. */
    public Answer<Accounts> accounts() {
        return answers.read(answers.send(HttpMethod.GET, USERS, Map.of(), null), Accounts.class, "GET " + USERS);
    }

    /** A new account for {@code email}, with these keys (none is allowed: it may get them later). */
    public Answer<Account> addAccount(String email, List<String> sshKeys) {
        ObjectNode body = JSON.createObjectNode().put("email", email);
        sshKeys.forEach(body.putArray("ssh_keys")::add);
        return answers.read(
                answers.send(HttpMethod.POST, USERS, JSON_BODY, body.toString()), Account.class, "POST " + USERS);
    }

    /** Locks the account (by login or e-mail) on every machine; its files are kept. */
    public Answer<Account> disableAccount(String login) {
        return aboutAccount(HttpMethod.POST, accountPath(login) + "/disable", null);
    }

    public Answer<Account> enableAccount(String login) {
        return aboutAccount(HttpMethod.POST, accountPath(login) + "/enable", null);
    }

    /** Removes the account: locked, keys dropped, files kept; its login and UID are never given again. */
    public Answer<Account> removeAccount(String login) {
        return aboutAccount(HttpMethod.DELETE, accountPath(login), null);
    }

    /** Replaces the account's SSH keys with these. */
    public Answer<Account> setAccountKeys(String login, List<String> sshKeys) {
        ObjectNode body = JSON.createObjectNode();
        sshKeys.forEach(body.putArray("ssh_keys")::add);
        return aboutAccount(HttpMethod.PUT, accountPath(login) + "/ssh_keys", body.toString());
    }

    /** Adds the e-mails not known yet and brings the known ones to the keys and state given; all or nothing. */
    public Answer<Accounts> importAccounts(ArrayNode accounts) {
        ObjectNode body = JSON.createObjectNode();
        body.set("accounts", accounts);
        String path = USERS + "/import";
        return answers.read(
                answers.send(HttpMethod.POST, path, JSON_BODY, body.toString()), Accounts.class, "POST " + path);
    }

    /** A request about one account: a 400, or a 404 that says the leader has no such account, is a {@link Refused}. */
    private Answer<Account> aboutAccount(HttpMethod method, String path, String body) {
        return answers.read(answers.refusable(method, path, body), Account.class, method + " " + path);
    }

    /** {@code /v1/users/LOGIN}, the login (or e-mail) percent-encoded as a path segment. */
    static String accountPath(String login) {
        return USERS + "/" + segment(login);
    }

    /** {@code value} percent-encoded as one path segment. */
    static String segment(String value) {
        StringBuilder path = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~@".indexOf(c) >= 0) {
                path.append(c);
            } else {
                path.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return path.toString();
    }

    /**
     * Reads the settings, asks {@code plan} for the patch that makes the change, and writes it onto
     * the revision read; reads and tries again when someone else wrote in between.
     *
     * @param plan the patch to send, or empty when the settings already are as asked
     */
    public Change change(Function<Answer<SettingsDocument>, Optional<ObjectNode>> plan) {
        return onRevisionRead("change them", before -> {
            Optional<ObjectNode> patch = plan.apply(before);
            return patch.isEmpty()
                    ? new Change(before, Optional.<Answer<SettingsDocument>>empty())
                    : new Change(
                            before,
                            Optional.of(patch(
                                    patch.get(), OptionalLong.of(before.value().revision()))));
        });
    }

    /**
     * As {@link #change}, as a dry run: the patch {@code plan} makes of the settings read, sent with
     * {@code ?dry_run=true} onto their revision, even when it changes nothing (the preview says so).
     *
     * @return the settings read, and what the leader says the patch would do
     */
    public Preview preview(Function<Answer<SettingsDocument>, ObjectNode> plan) {
        return onRevisionRead(
                "preview the change",
                before -> new Preview(
                        before,
                        previewPatch(
                                plan.apply(before),
                                OptionalLong.of(before.value().revision()))));
    }

    /** A dry run: the settings read, and what the leader said the change would do. */
    public record Preview(Answer<SettingsDocument> before, Answer<SettingsPreview> preview) {}

    /** Reads the settings and hands them to {@code attempt}; again when someone else wrote in between. */
    private <T> T onRevisionRead(String doing, Function<Answer<SettingsDocument>, T> attempt) {
        Conflict last = null;
        for (int n = 1; n <= ATTEMPTS; n++) {
            try {
                return attempt.apply(settings());
            } catch (Conflict c) {
                last = c;
                pause(n);
            }
        }
        throw new CtlException(
                ("someone else changed the settings %d times while ctl tried to %s "
                                + "(the leader is at revision %s now): run the command again")
                        .formatted(ATTEMPTS, doing, last.currentRevision() == null ? "?" : last.currentRevision()),
                List.of(),
                last.responseBody(),
                last);
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(50L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CtlException("interrupted");
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
