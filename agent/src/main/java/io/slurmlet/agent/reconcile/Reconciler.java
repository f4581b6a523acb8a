package io.slurmlet.agent.reconcile;

import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.plan.NodePlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A step in the four parts kubelet and the Operator SDK keep apart: {@link #desired} (pure, from the
 * plan), {@link #observe} (the machine, through the ports only, changing nothing), {@link #diff}
 * (pure: the actions that make one into the other; the same function a preview runs on the leader
 * against the machine's reported state) and {@link #act} (one action, through the ports). Nothing
 * is remembered between passes but the last observation, which the agent reports.
 *
 * @param <D> what the plan wants of this concern
 * @param <A> what the machine holds of it
 */
public abstract class Reconciler<D, A> implements Step {

    private final String name;
    private final Function<NodePlan, D> desired;
    private final BiFunction<D, A, Diff> diff;

    /**
     * @param name    the step's name, as status, health and ctl show it
     * @param desired what the plan wants of this concern (pure)
     * @param diff    the actions from what the machine holds to that (pure)
     */
    protected Reconciler(String name, Function<NodePlan, D> desired, BiFunction<D, A, Diff> diff) {
        this.name = name;
        this.desired = desired;
        this.diff = diff;
    }

    private volatile Optional<A> seen = Optional.empty();
    private volatile List<Action> acted = List.of();
    private volatile List<String> waiting = List.of();

    @Override
    public final String name() {
        return name;
    }

    /** What the plan wants of this step's concern. Pure. */
    public final D desired(NodePlan plan) {
        return desired.apply(plan);
    }

    /** What the machine holds of it now, read through the ports; changes nothing. */
    public abstract A observe(D desired) throws IOException, SystemException;

    /** What to do to make {@code actual} as {@code desired}. Pure. */
    public final Diff diff(D desired, A actual) {
        return diff.apply(desired, actual);
    }

    /** Does {@code action}, one of those {@link #diff} returned, through the ports. */
    protected abstract void act(D desired, Action action) throws IOException, SystemException;

    /**
     * What is left to do once the diff's actions are done, from the machine as they left it: a
     * follow-up no pure diff can foresee (Slurm 24.11 keeps a reason a resume clears on 22.05).
     * None for most steps.
     */
    protected List<Action> then(D desired, A after, List<Action> did) {
        return List.of();
    }

    /** What the last pass left: seen again after it acted (before, where that look failed); empty before the first look. */
    public Optional<A> seen() {
        return seen;
    }

    /** The actions the last pass did, in order (up to one that failed, which is left out). */
    public List<Action> acted() {
        return acted;
    }

    /** What the last pass held back until the machine is free (a mount under running jobs). */
    @Override
    public List<String> waiting() {
        return waiting;
    }

    /**
     * An action that cannot be done yet without hurting a job (a restart while a job launches): it
     * and the actions after it wait for the next pass, which its step must make sure owes them. The
     * step is not failed for it; its outcome says what waits.
     */
    public static final class Held extends SystemException {
        public Held(String why) {
            super(why);
        }
    }

    /**
     * Does {@code actions} in order, each done one added to {@code did} (and its line to {@code
     * done}); the failure of one ends them, unless it is {@link Action#isolated} (then its sentence
     * is added to {@code alone} and the next is done), and so does one that is {@link Held} (its
     * sentence is added to {@code held}, and the failure returned is empty).
     */
    private Optional<Outcome> doAll(
            D desired,
            List<Action> actions,
            List<Action> did,
            List<String> done,
            List<String> held,
            List<String> alone) {
        try {
            for (Action action : actions) {
                try {
                    act(desired, action);
                } catch (Held e) {
                    // Not a failure: it and what follows wait for the machine, and the next pass does them.
                    held.add(e.getMessage());
                    return Optional.empty();
                } catch (IOException | SystemException | UncheckedIOException e) {
                    if (action.isolated()) {
                        alone.add(action.failed(e.getMessage()));
                        continue;
                    }
                    return Optional.of(Outcome.failed(name(), action.failed(e.getMessage())));
                }
                did.add(action);
                if (!action.did().isEmpty()) {
                    done.add(action.did());
                }
            }
            return Optional.empty();
        } finally {
            acted = List.copyOf(did);
        }
    }

    /** Whether the machine is looked at again once the step acted: not where its actions change nothing there (a report to the leader). */
    protected boolean looksAgainAfterActing() {
        return true;
    }

    /** Looks again once it acted; a look that fails leaves what was seen before the actions (the next pass looks again). */
    private void refresh(D desired) {
        try {
            seen = Optional.of(observe(desired));
        } catch (IOException | SystemException | UncheckedIOException e) {
            // Kept: an empty report would tell the leader that slurmctld knows no node at all.
        }
    }

    @Override
    public Outcome apply(NodePlan plan) {
        return reconcile(desired(plan));
    }

    /** One pass towards {@code desired}: observe, diff, act, look again. */
    protected final Outcome reconcile(D desired) {
        A actual;
        try {
            actual = observe(desired);
        } catch (IOException | SystemException | UncheckedIOException e) {
            return Outcome.failed(name(), e.getMessage());
        }
        seen = Optional.of(actual);
        Diff diff = diff(desired, actual);
        List<String> done = new ArrayList<>();
        List<Action> did = new ArrayList<>();
        List<String> held = new ArrayList<>();
        List<String> alone = new ArrayList<>();
        acted = List.of();
        Optional<Outcome> failed = doAll(desired, diff.actions(), did, done, held, alone);
        if (failed.isEmpty() && !did.isEmpty() && looksAgainAfterActing()) {
            // What is reported is the machine as this pass left it.
            refresh(desired);
            List<Action> more =
                    held.isEmpty() && seen.isPresent() ? then(desired, seen.get(), List.copyOf(did)) : List.of();
            failed = doAll(desired, more, did, done, held, alone);
            if (failed.isEmpty() && !more.isEmpty()) {
                refresh(desired);
            }
        }
        List<String> waits = new ArrayList<>(diff.waiting());
        waits.addAll(held);
        waiting = List.copyOf(waits);
        if (failed.isPresent()) {
            return failed.get();
        }
        diff.blocked().ifPresent(alone::add);
        if (!alone.isEmpty()) {
            return Outcome.failed(
                    name(),
                    String.join("; ", alone) + (done.isEmpty() ? "" : " (done: " + String.join("; ", done) + ")"));
        }
        if (done.isEmpty()) {
            return Outcome.unchanged(name(), waits.isEmpty() ? diff.settled() : String.join("; ", waits));
        }
        done.addAll(waits);
        return Outcome.changed(name(), String.join("; ", done));
    }
}
