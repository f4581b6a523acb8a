package io.slurmlet.agent.reconcile;

import io.slurmlet.model.api.SettingsPreview;
import java.util.List;
import java.util.Optional;

/**
 * One thing a step's {@link Reconciler#diff} found to do on a machine: what a preview shows before
 * it is done ({@link #will}) and what the outcome says once it is ({@link #did}). Each step has its
 * own sealed set of actions, which only its {@code act} knows how to do.
 */
public interface Action {

    /** What will be done, as a preview shows it: {@code unmount n0:/shared from /shared}. */
    String will();

    /** What was done, for the outcome; empty for housekeeping that is not worth a line (enabling a unit already meant to run). */
    String did();

    /**
     * The files this action writes, as a preview lists them; none for an action on anything else.
     *
     * @param diffs makes the diff, once for a change many machines share
     */
    default List<SettingsPreview.FileChange> files(FileDiffs diffs) {
        return List.of();
    }

    /** What this action makes a daemon do, as a preview lists it; empty for an action on anything else. */
    default Optional<SettingsPreview.DaemonChange> daemon() {
        return Optional.empty();
    }

    /** Housekeeping (enabling a unit that is about to start, a folder made where missing): not worth a line in an outcome or a preview. */
    default boolean housekeeping() {
        return did().isEmpty();
    }

    /**
     * Whether a failure of this action ends only itself: the actions after it are still done, and the
     * step fails with every such failure said (one account whose home cannot be read or written never
     * keeps another account's lock or keys from landing). Otherwise a failure ends the pass.
     */
    default boolean isolated() {
        return false;
    }

    /** What a failure of this action means, from the port's error. */
    default String failed(String error) {
        return error;
    }

    /** An action that is only its sentence, done or to be done alike: what a preview says beside a step's own actions. */
    static Action sentence(String will) {
        return new Action() {
            public String will() {
                return will;
            }

            public String did() {
                return will;
            }
        };
    }
}
