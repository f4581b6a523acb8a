package io.slurmlet.agent.trust;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The join tokens: each lets new machines join for a while (24 hours unless the admin says
 * otherwise), until it expires or is revoked, as kubeadm's bootstrap tokens do. A token reads
 * {@code ID.SECRET}; the leader keeps its id, what it is for, when it was made and when it ends,
 * and of the secret only the sha256 of the whole token ({@code join-tokens.json}, root-only): the
 * token is shown once, when it is made, and a copy of the state directory joins no machine.
 */
public final class JoinTokens {

    public static final String FILE_NAME = "join-tokens.json";
    public static final Duration DEFAULT_TTL = Duration.ofHours(24);
    /** The longest a token may live: a site that joins machines for longer makes a new one. */
    public static final Duration MAX_TTL = Duration.ofDays(30);
    /** Expired tokens are listed for this long, then forgotten. */
    static final Duration KEPT_AFTER_EXPIRY = Duration.ofDays(7);

    public static final int MAX_DESCRIPTION = 200;
    public static final Pattern ID = Pattern.compile("[a-z0-9]{8}");

    private static final Logger LOG = Logger.getLogger(JoinTokens.class);
    private static final String ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";

    /**
     * One token, as kept: never its secret.
     *
     * @param id          what lists and revokes it, the part before the dot
     * @param sha256      the sha256 of the whole token, hex
     * @param description what the admin made it for; may be empty
     * @param created     when it was made, as an ISO-8601 instant
     * @param expires     when it stops working, as an ISO-8601 instant
     */
    @RegisterForReflection
    public record Entry(
            @JsonProperty("id") String id,
            @JsonProperty("sha256") String sha256,
            @JsonProperty("description") String description,
            @JsonProperty("created") String created,
            @JsonProperty("expires") String expires) {

        public Entry(String id, String sha256, String description, Instant created, Instant expires) {
            this(id, sha256, description, created.toString(), expires.toString());
        }

        public Instant expiresAt() {
            return Instant.parse(expires);
        }

        public boolean expiredAt(Instant now) {
            return !now.isBefore(expiresAt());
        }

        @Override
        public String toString() {
            return "JoinToken[" + id + ", until " + expires + "]";
        }
    }

    /** A token just made: the only time its secret is seen. */
    public record Created(Entry entry, String token) {
        @Override
        public String toString() {
            return "Created[" + entry + ", token not shown]";
        }
    }

    private final Document<List<Entry>> file;
    private final Clock clock;
    /**
     * The tokens kept, as the last write that finished left them: a list never changed once set,
     * replaced after each write is durable. {@link #match} reads it without the lock the writes
     * hold, so a join's check on the event loop never waits for a slow store.
     */
    private volatile List<Entry> entries;

    private JoinTokens(Document<List<Entry>> file, Clock clock, List<Entry> entries) {
        this.file = file;
        this.clock = clock;
        this.entries = entries;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static JoinTokens open(Path stateDir, Clock clock) throws IOException {
        return open(FileStore.open(stateDir), clock, stateDir.resolve(TokenFile.JOIN_FILE_NAME));
    }

    /**
     * The tokens kept in {@code store}. A {@code legacy} {@code join.token} of an earlier slurmlet (one token
     * that never expired) is taken over once as the token {@code initial0}, expiring a day later,
     * and removed.
     */
    public static JoinTokens open(Store store, Clock clock, Path legacy) throws IOException {
        Document<List<Entry>> file = Document.in(store, FILE_NAME, new TypeReference<>() {});
        JoinTokens tokens = new JoinTokens(
                file,
                clock,
                new ArrayList<>(file.read(
                        List::of, "the join tokens", "remove it and make new ones with ctl slurm join-token create")));
        if (Files.exists(legacy)) {
            tokens.takeOver(legacy);
        }
        return tokens;
    }

    private synchronized void takeOver(Path legacy) throws IOException {
        String token;
        try {
            token = Files.readString(legacy, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return;
        }
        Instant now = clock.instant();
        if (token.length() >= 32 && entries.stream().noneMatch(e -> e.id().equals("initial0"))) {
            List<Entry> next = new ArrayList<>(entries);
            next.add(new Entry(
                    "initial0",
                    Secrets.hash(token),
                    "the join token of an earlier slurmlet, which did not expire",
                    now,
                    now.plus(DEFAULT_TTL)));
            store(next);
            LOG.infof(
                    "%s: taken over as the join token initial0, which expires at %s; make new ones with ctl slurm join-token create",
                    legacy, now.plus(DEFAULT_TTL));
        }
        Files.delete(legacy);
    }

    /** Whether a token may live {@code ttl}: from a second to {@link #MAX_TTL}. */
    public static boolean validTtl(Duration ttl) {
        return !ttl.isNegative() && !ttl.isZero() && ttl.compareTo(MAX_TTL) <= 0;
    }

    /** Whether {@code description} can describe a token: one line of text of at most {@link #MAX_DESCRIPTION} characters. */
    public static boolean validDescription(String description) {
        return description.length() <= MAX_DESCRIPTION
                && Text.unsafe(description).isEmpty();
    }

    /** Makes a token that works for {@code ttl}, durable before it is returned. */
    public synchronized Created create(Duration ttl, String description) throws IOException {
        if (!validTtl(ttl)) {
            throw new IllegalArgumentException("ttl " + ttl + " is not from 1 second to " + MAX_TTL.toDays() + " days");
        }
        if (!validDescription(description)) {
            throw new IllegalArgumentException("description " + Text.quote(description)
                    + " is not one line of text of at most " + MAX_DESCRIPTION + " characters");
        }
        SecureRandom random = new SecureRandom();
        String id;
        do {
            StringBuilder b = new StringBuilder(8);
            for (int i = 0; i < 8; i++) {
                b.append(ID_CHARS.charAt(random.nextInt(ID_CHARS.length())));
            }
            id = b.toString();
        } while (find(id).isPresent());
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        String token = id + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        Instant now = clock.instant();
        Entry entry = new Entry(id, Secrets.hash(token), description, now, now.plus(ttl));
        List<Entry> next = new ArrayList<>(entries);
        next.removeIf(e -> e.expiresAt().plus(KEPT_AFTER_EXPIRY).isBefore(now));
        next.add(entry);
        store(next);
        return new Created(entry, token);
    }

    /** Every token kept, live and recently expired, oldest first. */
    public synchronized List<Entry> list() {
        return entries.stream()
                .sorted(Comparator.comparing(e -> Instant.parse(e.created())))
                .toList();
    }

    /** Revokes the token {@code id} at once; says whether there was one. */
    public synchronized boolean revoke(String id) throws IOException {
        if (find(id).isEmpty()) {
            return false;
        }
        List<Entry> next = new ArrayList<>(entries);
        next.removeIf(e -> e.id().equals(id));
        store(next);
        return true;
    }

    /**
     * The live token {@code presented} is, compared in constant time with every one kept; empty when
     * none. Takes no lock: it never waits for a token's creation or revocation being written.
     */
    public Optional<Entry> match(String presented) {
        Instant now = clock.instant();
        return Secrets.matching(
                presented, entries.stream().filter(e -> !e.expiredAt(now)).toList(), Entry::sha256);
    }

    private Optional<Entry> find(String id) {
        return entries.stream().filter(e -> e.id().equals(id)).findFirst();
    }

    private void store(List<Entry> next) throws IOException {
        file.write(next);
        entries = next;
    }

    @Override
    public String toString() {
        return "JoinTokens[" + file.where() + "]";
    }
}
