package io.slurmlet.agent.leader;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.jboss.logging.Logger;

/**
 * The leader's settings, durable and revisioned. Every accepted change raises the revision by one
 * and is on disk (written atomically, fsynced) before it is acknowledged; a change that names a
 * revision other than the current one is refused, so two admins never overwrite each other
 * silently; settings with problems are never stored.
 */
public final class SettingsStore {

    /** The file in the state directory. */
    public static final String FILE_NAME = "settings.json";

    private static final Logger LOG = Logger.getLogger(SettingsStore.class);

    private final Document<SettingsDocument> file;
    /**
     * Guarded by this: set under the lock its write to the store is made with, so that a watcher told of the
     * write and reading it waits for it and sees the change.
     */
    private SettingsDocument current;

    private SettingsStore(Document<SettingsDocument> file, SettingsDocument current) {
        this.file = file;
        this.current = current;
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static SettingsStore open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /**
     * Opens the settings kept in {@code store}: the ones written last, or the defaults at revision 0
     * when there are none yet. An unreadable file is an error, never a silent reset.
     */
    public static SettingsStore open(Store store) throws IOException {
        Document<SettingsDocument> file = Document.in(store, FILE_NAME, new TypeReference<>() {});
        return new SettingsStore(
                file,
                file.read(
                        () -> new SettingsDocument(0, SlurmSettings.DEFAULTS),
                        "the stored settings",
                        "restore the file from a backup; slurmlet never starts over from empty settings on its own"));
    }

    public synchronized SettingsDocument current() {
        return current;
    }

    /** Where the settings are kept, for errors and logs. */
    public String where() {
        return file.where();
    }

    /** What became of a change. */
    public sealed interface Result {
        /** Stored and durable. */
        record Accepted(SettingsDocument document, boolean changed) implements Result {}

        /** The change named a revision that is no longer current. */
        record Conflict(long expected, SettingsDocument current) implements Result {}

        /** The settings the change would make have problems; nothing was stored. */
        record Refused(List<Problem> problems) implements Result {}

        /** A dry run's answer: the change would be accepted, making {@code next} of {@code current}; nothing was stored. */
        record WouldStore(SettingsDocument current, SlurmSettings next) implements Result {}
    }

    /**
     * The leader's rules beyond the settings' own checks (leader.SettingsAdmission): what refuses
     * {@code next} over {@code current}, judged by a write under this store's lock, so against the
     * settings it is stored over. It reads the settings from its arguments only, and nothing that waits
     * on this store (a reader of {@link #current} waits for a write in progress): the lending book, the
     * inventory and the reports do not.
     */
    @FunctionalInterface
    public interface Admission {
        /** None: the settings' own checks only. */
        Admission NONE = (current, next, checked) -> List.of();

        /**
         * @param checked whether {@code next} passed its own checks ({@link SlurmSettings#check}): the rules that plan
         *                it run only then
         */
        List<Problem> judge(SlurmSettings current, SlurmSettings next, boolean checked);
    }

    /**
     * Applies {@code change} to the current settings and stores the result, if {@code expected}
     * (when present) is the current revision and the result has no problems. Settings equal to the
     * current ones are accepted without a write or a new revision.
     */
    public Result update(OptionalLong expected, UnaryOperator<SlurmSettings> change) throws IOException {
        return update(expected, change, Admission.NONE);
    }

    /**
     * As {@link #update(OptionalLong, UnaryOperator)}, and refused where {@code admission} says so, judged
     * under this store's lock against the settings the change is stored over: two writes never judge
     * against the same settings and both store.
     */
    public Result update(OptionalLong expected, UnaryOperator<SlurmSettings> change, Admission admission)
            throws IOException {
        return store(expected, change, admission);
    }

    /**
     * Judges {@code change} exactly as {@link #update} does (the revision, then the problems) and
     * stores nothing: a conflict, a refusal, or what the change would make of the current settings.
     */
    public Result dryRun(OptionalLong expected, UnaryOperator<SlurmSettings> change) {
        return dryRun(expected, change, Admission.NONE);
    }

    /** Judges {@code change} exactly as {@link #update(OptionalLong, UnaryOperator, Admission)} does, storing nothing. */
    public Result dryRun(OptionalLong expected, UnaryOperator<SlurmSettings> change, Admission admission) {
        return judge(current(), expected, change, admission);
    }

    /**
     * The revision, then the leader's rules (whose refusal is said first, as a change that would hurt
     * jobs is the one to fix first), then the settings' own checks.
     */
    private static Result judge(
            SettingsDocument now, OptionalLong expected, UnaryOperator<SlurmSettings> change, Admission admission) {
        if (expected.isPresent() && expected.getAsLong() != now.revision()) {
            return new Result.Conflict(expected.getAsLong(), now);
        }
        SlurmSettings next = change.apply(now.settings());
        List<Problem> problems = next.check();
        List<Problem> refused = admission.judge(now.settings(), next, problems.isEmpty());
        if (!refused.isEmpty()) {
            return new Result.Refused(refused);
        }
        if (!problems.isEmpty()) {
            return new Result.Refused(problems);
        }
        return new Result.WouldStore(now, next);
    }

    private synchronized Result store(OptionalLong expected, UnaryOperator<SlurmSettings> change, Admission admission)
            throws IOException {
        SettingsDocument now = current;
        Result judged = judge(now, expected, change, admission);
        if (!(judged instanceof Result.WouldStore accepted)) {
            return judged;
        }
        SlurmSettings next = accepted.next();
        if (next.equals(now.settings())) {
            return new Result.Accepted(now, false);
        }
        SettingsDocument written = new SettingsDocument(now.revision() + 1, next);
        file.write(written);
        current = written;
        LOG.infof("settings revision %d stored (was %d)", written.revision(), now.revision());
        return new Result.Accepted(written, true);
    }
}
