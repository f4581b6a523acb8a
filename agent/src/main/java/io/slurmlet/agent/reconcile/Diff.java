package io.slurmlet.agent.reconcile;

import java.util.List;
import java.util.Optional;

/**
 * What a step's diff found: the actions that make the machine as its plan wants, in the order they
 * are done, what is true once they are (or already is), and a reason the step cannot finish yet
 * that no action of its own can remove (the site has not mounted its storage): a failure.
 *
 * @param actions what to do, in order; empty: the machine matches
 * @param settled what holds when nothing is left to do, for an unchanged outcome
 * @param blocked why the step fails after its actions, and what the site does about it
 * @param waiting what the step holds back until the machine is free of what it waits for (a mount
 *                that stays while jobs run), each a sentence; the step is not failed for it
 */
public record Diff(List<Action> actions, String settled, Optional<String> blocked, List<String> waiting) {

    public Diff {
        actions = List.copyOf(actions);
        waiting = List.copyOf(waiting);
    }

    public static Diff of(List<? extends Action> actions, String settled) {
        return new Diff(List.copyOf(actions), settled, Optional.empty(), List.of());
    }

    public Diff blockedBy(String reason) {
        return new Diff(actions, settled, Optional.of(reason), waiting);
    }

    public Diff waitingFor(List<String> held) {
        return new Diff(actions, settled, blocked, held);
    }

    /** What a preview shows of it: every action's sentence. */
    public List<String> will() {
        return actions.stream().map(Action::will).toList();
    }
}
