package io.slurmlet.agent.leader.plan;

import com.fasterxml.jackson.core.type.TypeReference;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.plan.PublishedPlan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.TreeMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The plans the leader has published, each with its own revision: a machine's revision rises only
 * when its plan changes, so an agent polling with the revision it applied is answered only when
 * there is something new for it. Each machine's revision and a digest of its plan are kept in
 * {@code plans.json} (written only when a plan changes): a restarted leader gives an unchanged
 * plan its old revision, so agents holding it are not disturbed, and a changed one a higher
 * revision than any it gave before, so no agent can mistake it for the plan it holds.
 */
public final class PlanBook {

    public static final String FILE_NAME = "plans.json";

    /** A machine's last revision and the sha256 of its plan's JSON, as kept on disk. */
    @RegisterForReflection
    public record Kept(@com.fasterxml.jackson.annotation.JsonProperty("revision") long revision,
                       @com.fasterxml.jackson.annotation.JsonProperty("digest") String digest) { }

    private final Document<Map<String, Kept>> file;
    private Map<String, Kept> kept;
    private final Map<String, PublishedPlan> plans = new HashMap<>();
    private final Map<String, Set<Consumer<Answer>>> waiting = new HashMap<>();

    /**
     * A plan as a poll is answered with it: the published plan and its JSON, {@code {"revision": …,
     * "plan": …}}. A publish makes each changed plan's JSON once, for its digest and for every poll
     * waiting for it; a poll answered later makes it again (10,000 kept copies would be 130 MB).
     */
    public record Answer(PublishedPlan published, byte[] json) {
        static Answer of(PublishedPlan published, byte[] planJson) {
            byte[] head = ("{\"revision\":" + published.revision() + ",\"plan\":").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] json = java.util.Arrays.copyOf(head, head.length + planJson.length + 1);
            System.arraycopy(planJson, 0, json, head.length, planJson.length);
            json[json.length - 1] = '}';
            return new Answer(published, json);
        }

        static Answer of(PublishedPlan published) {
            return of(published, bytes(published.plan()));
        }
    }

    /** A book kept in memory only, for tests of the planner. */
    public PlanBook() {
        this.file = null;
        this.kept = new TreeMap<>();
    }

    private PlanBook(Document<Map<String, Kept>> file, Map<String, Kept> kept) {
        this.file = file;
        this.kept = kept;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static PlanBook open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /** Opens the book kept in {@code store}; an unreadable one starts over above every revision it could hold. */
    public static PlanBook open(Store store) throws IOException {
        Document<Map<String, Kept>> file = Document.in(store, FILE_NAME, new TypeReference<>() { });
        return new PlanBook(file, new TreeMap<>(file.read(Map::of, "the plans' revisions",
                "restore it from a backup; without it, restart every agent after the leader")));
    }

    /**
     * Publishes every plan; returns how many machines got a new revision. The revisions are on disk
     * before any plan is served or any poll answered: a failed write serves nothing new.
     */
    public int publish(Planner.Plans next) {
        List<Runnable> wake = new ArrayList<>();
        int changed = 0;
        synchronized (this) {
            Map<String, Kept> nextKept = new TreeMap<>(kept);
            Map<String, PublishedPlan> nextPlans = new HashMap<>(plans);
            List<Answer> fresh = new ArrayList<>();
            for (var plan : next.nodes().values()) {
                PublishedPlan before = plans.get(plan.node());
                if (before == null || !before.plan().equals(plan)) {
                    byte[] json = bytes(plan);
                    String digest = digest(json);
                    Kept was = kept.get(plan.node());
                    long revision = was == null ? 1 : digest.equals(was.digest()) ? was.revision() : was.revision() + 1;
                    PublishedPlan now = new PublishedPlan(revision, plan);
                    nextPlans.put(plan.node(), now);
                    nextKept.put(plan.node(), new Kept(revision, digest));
                    if (was == null || was.revision() != revision) {
                        fresh.add(waiting.containsKey(plan.node()) ? Answer.of(now, json) : new Answer(now, null));
                    }
                }
            }
            if (!nextKept.equals(kept)) {
                save(nextKept);
                kept = nextKept;
            }
            plans.clear();
            plans.putAll(nextPlans);
            for (Answer now : fresh) {
                changed++;
                Set<Consumer<Answer>> waiters = waiting.remove(now.published().plan().node());
                if (waiters != null) {
                    waiters.forEach(w -> wake.add(() -> w.accept(now)));
                }
            }
        }
        wake.forEach(Runnable::run);
        return changed;
    }

    private void save(Map<String, Kept> next) {
        if (file == null) {
            return;
        }
        try {
            file.write(next);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the plans' revisions to " + file.where(), e);
        }
    }

    private static byte[] bytes(Object plan) {
        try {
            return SettingsJson.STRICT.writeValueAsBytes(plan);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String digest(byte[] json) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public synchronized Optional<PublishedPlan> get(String node) {
        return Optional.ofNullable(plans.get(node));
    }

    /**
     * Hands {@code node}'s plan to {@code then} as soon as it differs from revision {@code held}: at
     * once if it already does, else when one is published. Returns what cancels the wait (the poll's
     * time is up, or its caller went away).
     */
    public Runnable whenNewer(String node, long held, Consumer<Answer> then) {
        PublishedPlan now;
        synchronized (this) {
            now = plans.get(node);
            if (now == null || now.revision() == held) {
                waiting.computeIfAbsent(node, n -> new LinkedHashSet<>()).add(then);
                return () -> cancel(node, then);
            }
        }
        then.accept(Answer.of(now));
        return () -> { };
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
