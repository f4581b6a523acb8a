package io.slurmlet.agent.leader.lending;

import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The platform's side of lending: the site's drain and release commands, run by the leader the way
 * Slurm runs its own ResumeProgram: an argv with {@code {node}} filled in, a deadline, the output
 * kept for the node's status. drain exits 0 when the node is free of the platform's work, 75 when
 * it is still busy; release runs once a reclaimed node has no job left. {@code {run}} is filled in
 * with an id that is the same on every run of one transition's hook: a leader that stopped during a
 * hook runs it again, and the hook can tell.
 */
public final class Hooks {

    private final Commands commands;
    private final Optional<List<String>> drain;
    private final Optional<List<String>> release;
    private final Duration deadline;
    private final Leadership leadership;

    public Hooks(Commands commands, Optional<List<String>> drain, Optional<List<String>> release, Duration deadline) {
        this(commands, drain, release, deadline, Leadership.SOLE);
    }

    /** @param leadership checked right before each run: a leader that lost the election runs no hook (the new one does) */
    public Hooks(
            Commands commands,
            Optional<List<String>> drain,
            Optional<List<String>> release,
            Duration deadline,
            Leadership leadership) {
        this.leadership = leadership;
        this.commands = commands;
        this.drain = drain.filter(a -> !a.isEmpty());
        this.release = release.filter(a -> !a.isEmpty());
        this.deadline = deadline;
    }

    public boolean has(Lending.Hook hook) {
        return (hook == Lending.Hook.DRAIN ? drain : release).isPresent();
    }

    public Lending.HookResult run(Lending.Hook hook, String node, String run) {
        List<String> argv = (hook == Lending.Hook.DRAIN ? drain : release)
                .orElseThrow().stream()
                        .map(a -> a.replace("{node}", node).replace("{run}", run))
                        .toList();
        leadership.check("run the " + hook.name().toLowerCase(Locale.ROOT) + " hook for " + node);
        try {
            Commands.Result r = commands.run(argv, deadline);
            return new Lending.HookResult(
                    r.exit(), tail(r.stdout() + (r.stderr().isEmpty() ? "" : "\n" + r.stderr())), "");
        } catch (CommandFailed e) {
            return new Lending.HookResult(-1, "", e.getMessage());
        }
    }

    /** The last lines a hook printed: enough for status, never a flood. */
    static String tail(String output) {
        String[] lines = output.strip().split("\n");
        int from = Math.max(0, lines.length - 5);
        String text =
                String.join("\n", Arrays.copyOfRange(lines, from, lines.length)).strip();
        return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
    }
}
