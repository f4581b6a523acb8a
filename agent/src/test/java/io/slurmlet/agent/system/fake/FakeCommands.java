package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Commands} for tests: answers each argv with what the test set up — a result, "not
 * installed", "past its deadline" — and logs every call. An argv matches an answer given for it
 * exactly, else the answer for its longest prefix; a call nothing matches fails the test.
 */
public final class FakeCommands implements Commands {

    /** One call: what was run, with which deadline. */
    public record Call(List<String> argv, Duration deadline) {}

    /** What a call gives. */
    @FunctionalInterface
    public interface Answer {
        Result apply(Call call) throws CommandFailed;
    }

    private final Map<List<String>, Answer> exact = new LinkedHashMap<>();
    private final Map<List<String>, Answer> prefixes = new LinkedHashMap<>();
    private final List<Call> calls = new ArrayList<>();

    /** {@code argv} exactly gives {@code result}. */
    public FakeCommands answer(List<String> argv, Result result) {
        exact.put(List.copyOf(argv), call -> result);
        return this;
    }

    /** {@code argv} exactly exits with 0 and prints {@code stdout}. */
    public FakeCommands answer(List<String> argv, String stdout) {
        return answer(argv, Result.ok(stdout));
    }

    /** Every argv that starts with {@code prefix} gives {@code result}. */
    public FakeCommands answerPrefix(List<String> prefix, Result result) {
        prefixes.put(List.copyOf(prefix), call -> result);
        return this;
    }

    /** Every argv that starts with {@code prefix} is answered by {@code answer}, which may act as the program would. */
    public FakeCommands answerPrefix(List<String> prefix, Answer answer) {
        prefixes.put(List.copyOf(prefix), answer);
        return this;
    }

    /** The program {@code program} is not installed: every argv starting with it is "not found". */
    public FakeCommands notInstalled(String program) {
        prefixes.put(List.of(program), call -> {
            throw CommandFailed.notFound(call.argv(), "the fake's search path");
        });
        return this;
    }

    /** Every argv that starts with {@code prefix} runs past its deadline (and is "killed"). */
    public FakeCommands pastDeadline(List<String> prefix, String stderrSoFar) {
        prefixes.put(List.copyOf(prefix), call -> {
            throw CommandFailed.pastDeadline(call.argv(), call.deadline(), stderrSoFar, "");
        });
        return this;
    }

    @Override
    public Result run(List<String> argv, Duration deadline) throws CommandFailed {
        Call call = new Call(List.copyOf(argv), deadline);
        calls.add(call);
        Answer answer = exact.get(call.argv());
        if (answer == null) {
            int best = -1;
            for (var e : prefixes.entrySet()) {
                List<String> p = e.getKey();
                if (p.size() > best
                        && p.size() <= argv.size()
                        && argv.subList(0, p.size()).equals(p)) {
                    best = p.size();
                    answer = e.getValue();
                }
            }
        }
        if (answer == null) {
            throw new AssertionError("FakeCommands was not told how to answer " + argv);
        }
        return answer.apply(call);
    }

    /** The argv of each call, in order. */
    public List<List<String>> log() {
        return calls.stream().map(Call::argv).toList();
    }

    /** Each call with its deadline, in order. */
    public List<Call> calls() {
        return List.copyOf(calls);
    }

    public void clearLog() {
        calls.clear();
    }
}
