package io.slurmlet.agent.leader.plan;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.plan.PlanDigest;
import io.slurmlet.model.plan.PlanJson;
import io.slurmlet.model.plan.PublishedPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The plans the leader has published, each with its revision: a machine's revision changes only
 * when its plan changes, so an agent polling with the revision it applied is answered only when
 * there is something new for it. Revisions come from one counter, and {@code plans.json} keeps only
 * the highest one handed out, written before any of them is served: a changed plan always gets a
 * revision no leader gave before, so no agent can mistake it for the plan it holds, and the
 * document stays a few bytes however many machines there are (it was a revision and a digest a
 * machine: 1 MB at 10,000, near etcd's limit on one request). An agent polls with the digest of
 * the plan it holds; a leader that started since gives a plan with that digest the agent's
 * revision, so agents are not sent again what they hold.
 */
public final class PlanBook {

    private static final Logger LOG = Logger.getLogger(PlanBook.class);

    public static final String FILE_NAME = "plans.json";
    /** plans.json's one member: every revision any leader handed out is at most this. */
    static final String UP_TO = "revisions_up_to";

    /** A published plan's revision and digest (and, read from an earlier format, a machine's last ones). */
    private record Kept(long revision, String digest) {}

    private final Document<JsonNode> file;
    private long given;
    /** The digest of each machine's published plan. */
    private final Map<String, String> digests = new HashMap<>();
    /** Each machine's revision and digest as an earlier slurmlet kept them (a document a machine in plans.json): used once, by the first publish. */
    private Map<String, Kept> earlier;
    /**
     * What each machine's agent last said it holds (a revision some leader gave, and its plan's
     * digest): a publish gives a plan with that digest that revision, even a first publish after a
     * start that polls reached before it.
     */
    private final Map<String, Kept> told = new HashMap<>();

    private final Map<String, PublishedPlan> plans = new HashMap<>();
    private final Map<String, Set<Consumer<Answer>>> waiting = new HashMap<>();

    /**
     * A plan as a poll is answered with it: the published plan and its JSON, {@code {"revision": …,
     * "plan": …}}, in pieces ({@link PlanJson}: the texts every plan carries alike are one array for
     * all). A publish makes each changed plan's JSON once, for its digest and for every poll waiting
     * for it; a poll answered later makes it again.
     */
    public record Answer(PublishedPlan published, PlanJson json, Wave wave) {
        private static final byte[] TAIL = {'}'};

        public Answer(PublishedPlan published, PlanJson json) {
            this(published, json, null);
        }

        static Answer of(PublishedPlan published, PlanJson planJson, Wave wave) {
            byte[] head = ("{\"revision\":" + published.revision() + ",\"plan\":").getBytes(StandardCharsets.US_ASCII);
            return new Answer(published, planJson.between(head, TAIL), wave);
        }

        static Answer of(PublishedPlan published) {
            return of(published, PlanJson.of(published.plan()), null);
        }

        /**
         * Says once whether this answer was written to its poll's connection ({@code false}: the
         * poll had ended, its time up or its connection gone): a publish's {@link Wave} logs
         * when every answer it woke has said.
         */
        public void written(boolean ok) {
            if (wave != null) {
                wave.written(ok);
            }
        }
    }

    /** A book kept in memory only, for tests of the planner. */
    public PlanBook() {
        this(null, 0, Map.of());
    }

    private PlanBook(Document<JsonNode> file, long given, Map<String, Kept> earlier) {
        this.file = file;
        this.given = given;
        this.earlier = earlier;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static PlanBook open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /**
     * Opens the book kept in {@code store}. A {@code plans.json} of an earlier slurmlet (each
     * machine's revision and digest) is read as the highest of its revisions, and its digests keep
     * unchanged plans their revisions at the first publish; the next write is the new form.
     */
    public static PlanBook open(Store store) throws IOException {
        Document<JsonNode> file = Document.in(store, FILE_NAME, new TypeReference<>() {});
        String fix = "restore it from a backup; without it, restart every agent after the leader";
        JsonNode kept = file.read(SettingsJson.STRICT::createObjectNode, "the plans' revisions", fix);
        if (!kept.isObject()) {
            throw new IOException(
                    "cannot read the plans' revisions in %s (not a JSON object): %s".formatted(file.where(), fix));
        }
        if (kept.has(UP_TO)) {
            JsonNode upTo = kept.get(UP_TO);
            if (!upTo.canConvertToExactIntegral() || upTo.asLong() < 0) {
                throw new IOException("cannot read the plans' revisions in %s (%s is %s, not a whole number): %s"
                        .formatted(file.where(), UP_TO, upTo, fix));
            }
            return new PlanBook(file, upTo.asLong(), Map.of());
        }
        Map<String, Kept> earlier = new HashMap<>();
        long highest = 0;
        for (var e : kept.properties()) {
            JsonNode revision = e.getValue().path("revision");
            String digest = e.getValue().path("digest").asText("");
            if (!revision.canConvertToExactIntegral()
                    || !PlanDigest.FORM.matcher(digest).matches()) {
                throw new IOException(
                        "cannot read the plans' revisions in %s (%s: %s is not a revision and a digest): %s"
                                .formatted(file.where(), e.getKey(), e.getValue(), fix));
            }
            earlier.put(e.getKey(), new Kept(revision.asLong(), digest));
            highest = Math.max(highest, revision.asLong());
        }
        return new PlanBook(file, highest, earlier);
    }

    /**
     * Publishes every plan; returns how many machines got a new revision. The highest revision is
     * on disk before any plan is served or any poll answered: a failed write serves nothing new.
     */
    public int publish(Planner.Plans next) {
        return publish(next, System.nanoTime());
    }

    /**
     * As {@link #publish(Planner.Plans)}, for plans whose making began at {@code began}
     * ({@link System#nanoTime()}): the answers to the polls it wakes are timed from then ({@link Wave}).
     */
    public int publish(Planner.Plans next, long began) {
        List<Runnable> wake = new ArrayList<>();
        int changed = 0;
        synchronized (this) {
            long upTo = given;
            Map<String, PublishedPlan> nextPlans = new HashMap<>(plans);
            Map<String, String> nextDigests = new HashMap<>();
            List<Answer> fresh = new ArrayList<>();
            int woken = 0;
            for (var plan : next.nodes().values()) {
                PublishedPlan before = plans.get(plan.node());
                if (before == null || !before.plan().equals(plan)) {
                    PlanJson json = PlanJson.of(plan);
                    String digest = json.digest();
                    Kept holds = told.get(plan.node());
                    Kept was = holds != null && digest.equals(holds.digest())
                            ? holds
                            : before != null
                                    ? new Kept(before.revision(), digests.get(plan.node()))
                                    : earlier.get(plan.node());
                    long revision = was != null && digest.equals(was.digest()) ? was.revision() : ++upTo;
                    PublishedPlan now = new PublishedPlan(revision, plan);
                    nextPlans.put(plan.node(), now);
                    nextDigests.put(plan.node(), digest);
                    boolean held = was != null && was == holds; // the agent holds this very plan: its poll waits on
                    if (!held && (before == null || before.revision() != revision)) {
                        Set<Consumer<Answer>> waiters = waiting.get(plan.node());
                        woken += waiters == null ? 0 : waiters.size();
                        fresh.add(
                                new Answer(now, waiters != null ? json : null)); // the plan's own JSON: answered below
                    }
                }
            }
            if (upTo != given) {
                save(upTo);
                given = upTo;
            }
            plans.clear();
            plans.putAll(nextPlans);
            digests.putAll(nextDigests);
            earlier = Map.of();
            Wave wave = woken == 0 ? null : new Wave(began, woken);
            for (Answer made : fresh) {
                changed++;
                Set<Consumer<Answer>> waiters =
                        waiting.remove(made.published().plan().node());
                if (waiters != null) {
                    Answer now = Answer.of(made.published(), made.json(), wave);
                    waiters.forEach(w -> wake.add(() -> w.accept(now)));
                }
            }
        }
        for (Runnable w : wake) {
            try {
                w.run();
            } catch (RuntimeException e) {
                // One poll's answer that fails (its connection gone) never keeps the others from theirs.
                LOG.warnf("answering a poll with its new plan failed: %s", e.toString());
            }
        }
        return changed;
    }

    private void save(long upTo) {
        if (file == null) {
            return;
        }
        try {
            file.write(SettingsJson.STRICT.createObjectNode().put(UP_TO, upTo));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the plans' revisions to " + file.where(), e);
        }
    }

    public synchronized Optional<PublishedPlan> get(String node) {
        return Optional.ofNullable(plans.get(node));
    }

    /** Every machine's published plan, by machine. */
    public synchronized Map<String, PublishedPlan> all() {
        return Map.copyOf(plans);
    }

    /**
     * Hands {@code node}'s plan to {@code then} as soon as it differs from revision {@code held}: at
     * once if it already does, else when one is published. Returns what cancels the wait (the poll's
     * time is up, or its caller went away). {@link #whenNewer(String, long, String, Consumer)} with
     * no digest: an agent that does not say what it holds.
     */
    public Runnable whenNewer(String node, long held, Consumer<Answer> then) {
        return whenNewer(node, held, null, then);
    }

    /**
     * As {@link #whenNewer(String, long, Consumer)}, for an agent holding revision {@code held} of a
     * plan whose digest is {@code digest} (null: not said). The plan published now, with another
     * revision but that digest, is what the agent holds: an earlier leader gave it that revision,
     * and it keeps it, so the agent is not sent it again. The same revision with another digest
     * (a leader's state restored from an older backup) is answered at once.
     */
    public Runnable whenNewer(String node, long held, String digest, Consumer<Answer> then) {
        PublishedPlan now;
        synchronized (this) {
            now = plans.get(node);
            String published = digests.get(node);
            if (digest != null && held > 0 && held <= given) {
                told.put(node, new Kept(held, digest));
                if (now != null && digest.equals(published) && now.revision() != held) {
                    now = new PublishedPlan(held, now.plan());
                    plans.put(node, now);
                }
            }
            if (now == null || now.revision() == held && (digest == null || digest.equals(published))) {
                waiting.computeIfAbsent(node, n -> new LinkedHashSet<>()).add(then);
                return () -> cancel(node, then);
            }
        }
        then.accept(Answer.of(now));
        return () -> {};
    }

    private synchronized void cancel(String node, Consumer<Answer> waiter) {
        Set<Consumer<Answer>> waiters = waiting.get(node);
        if (waiters != null) {
            waiters.remove(waiter);
            if (waiters.isEmpty()) {
                waiting.remove(node);
            }
        }
    }

    /** How many polls wait now, for tests and figures. */
    public synchronized int waiting() {
        return waiting.values().stream().mapToInt(Set::size).sum();
    }
}
