package io.slurmlet.agent.munge;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.observed.MungeSeen;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The munge step's pure half: the cluster's key in /etc/munge/munge.key (0400, munge's) and munged
 * running on every machine with a Slurm role. munged reads its key only at start: a new key
 * restarts it. The key itself is in no action's sentence.
 *
 * <p>A rotated key ({@code ctl slurm munge-key rotate}) comes with the moment the leader picked for
 * every machine to switch: a machine that holds the key before it writes the new one and restarts
 * munged at that moment, not when its plan comes, so that machines disagree for as short a time as
 * their clocks do (a credential signed with one key is refused by a munged that holds the other:
 * system-tests/slurm/FINDINGS.md). A machine that gets the plan after that moment (it was down)
 * switches at once; one with no key yet takes it at once.
 */
public final class MungeDiff {

    public static final String KEY_FILE = "/etc/munge/munge.key";
    public static final String UNIT = "munge";

    private MungeDiff() {}

    /**
     * @param role whether the machine has a Slurm role (and the plan the key)
     * @param key  the key; empty in a preview, which never holds it
     */
    public record Wanted(boolean role, Optional<MungeKey> key) {
        /**
         * Whether munge is kept on the machine: only where its plan holds the key. A preview's plans
         * never hold it, and show what a machine with the role does once its plan does.
         */
        public boolean kept() {
            return role && key.isPresent();
        }

        @Override
        public String toString() {
            return "Wanted[role=" + role + "]";
        }
    }

    /**
     * Munge is wanted on a machine with a Slurm role under auth=munge: under auth=slurm a plan holds
     * Slurm's own keys and no munge key, and munge is left as it is.
     */
    public static Wanted desired(NodePlan plan) {
        return new Wanted(!plan.roles().isEmpty() && plan.slurmKeys().isEmpty(), plan.mungeKey());
    }

    /** A machine that has made {@code wanted} true. */
    public static MungeSeen assumed(Wanted wanted) {
        return new MungeSeen(wanted.role(), wanted.role(), wanted.role(), wanted.role(), wanted.role());
    }

    /**
     * The diff of a preview, whose plans never hold the key: what a machine with a role does once its
     * plan holds it, a switch shown as its plan says it, whenever it comes.
     */
    public static Diff diff(Wanted wanted, MungeSeen seen) {
        return wanted.role() ? actions(wanted, seen, Instant.MIN) : LEFT;
    }

    /**
     * The diff on the machine, where munge is kept only by a plan that holds the key.
     *
     * @param now the machine's clock: a switch still to come is written at its moment, one past at once
     */
    public static Diff diff(Wanted wanted, MungeSeen seen, Instant now) {
        return wanted.kept() ? actions(wanted, seen, now) : LEFT;
    }

    private static final Diff LEFT =
            Diff.of(List.of(), "no Slurm role here, or Slurm runs auth=slurm: munge is left as it is");

    private static Diff actions(Wanted wanted, MungeSeen seen, Instant now) {
        List<MungeAction> a = new ArrayList<>();
        if (!seen.matches()) {
            // Only a machine that holds a key (the one before) waits for the moment every machine switches.
            Optional<Instant> at =
                    seen.key() ? wanted.key().flatMap(MungeKey::switchAt).filter(now::isBefore) : Optional.empty();
            a.add(new WriteKey(seen.key(), at));
        } else if (!seen.owned()) {
            a.add(new OwnKey());
        }
        if (!seen.enabled()) {
            a.add(new Enable());
        }
        if (!seen.active()) {
            a.add(new Start());
        } else if (!seen.matches()) {
            a.add(new Restart());
        }
        return Diff.of(a, "the key matches and munge runs");
    }

    sealed interface MungeAction extends Action permits WriteKey, OwnKey, Enable, Start, Restart {}

    /**
     * @param replaces whether another key is there now (the one before a rotation, or another cluster's)
     * @param at       the moment to write it, agreed by every machine; empty: now
     */
    record WriteKey(boolean replaces, Optional<Instant> at) implements MungeAction {
        WriteKey(boolean replaces) {
            this(replaces, Optional.empty());
        }

        public String will() {
            return "write the cluster's key to " + KEY_FILE
                    + at.map(t -> " at " + t + ", when every machine switches").orElse("");
        }

        public String did() {
            return "wrote the cluster's key to " + KEY_FILE
                    + at.map(t -> " at " + t + ", when every machine switched").orElse("");
        }

        @Override
        public List<SettingsPreview.FileChange> files(FileDiffs diffs) {
            return List.of(new SettingsPreview.FileChange(
                    KEY_FILE, replaces ? SettingsPreview.Change.CHANGED : SettingsPreview.Change.CREATED, null));
        }

        @Override
        public String failed(String error) {
            return "cannot write %s: %s".formatted(KEY_FILE, error);
        }
    }

    record OwnKey() implements MungeAction {
        public String will() {
            return "make " + KEY_FILE + " 0400 munge:munge";
        }

        public String did() {
            return "made " + KEY_FILE + " 0400 munge:munge";
        }
    }

    record Enable() implements MungeAction {
        public String will() {
            return "enable munge";
        }

        public String did() {
            return "enabled munge";
        }

        @Override
        public boolean housekeeping() {
            return true;
        }
    }

    record Start() implements MungeAction {
        public String will() {
            return "start munged";
        }

        public String did() {
            return "started munge";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(new DaemonChange(UNIT, SettingsPreview.Action.START, "munged does not run here yet"));
        }
    }

    record Restart() implements MungeAction {
        public String will() {
            return "restart munged for its new key";
        }

        public String did() {
            return "restarted munge for its new key";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(new DaemonChange(
                    UNIT, SettingsPreview.Action.RESTART, "a new munge key, which munged reads only at start"));
        }
    }
}
