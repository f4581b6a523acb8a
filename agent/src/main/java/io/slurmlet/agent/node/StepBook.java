package io.slurmlet.agent.node;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.model.api.StepStatus;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each step's last outcome, with its last error kept until another one: what status, health and
 * {@code ctl slurm status} show. The names, in the order the steps run, are the wiring's.
 */
public final class StepBook {

    private final List<String> names;
    private final Map<String, StepStatus> statuses = new ConcurrentHashMap<>();

    StepBook(List<String> names) {
        this.names = List.copyOf(names);
    }

    /** The steps' names, in the order they run. */
    public List<String> names() {
        return names;
    }

    /** A step's last outcome; empty for a step that has not run. */
    public Optional<StepStatus> get(String name) {
        return Optional.ofNullable(statuses.get(name));
    }

    /** Every step that ran, in the order the steps run. */
    List<StepStatus> all() {
        return names.stream().map(statuses::get).filter(Objects::nonNull).toList();
    }

    void record(Outcome outcome) {
        String now = Instant.now().toString();
        StepStatus before = statuses.get(outcome.step());
        String lastError = before == null ? "" : before.lastError();
        String lastErrorAt = before == null ? "" : before.lastErrorAt();
        if (outcome.failed()) {
            lastError = outcome.detail();
            lastErrorAt = now;
        }
        statuses.put(
                outcome.step(),
                new StepStatus(
                        outcome.step(),
                        outcome.kind().name().toLowerCase(Locale.ROOT),
                        outcome.detail(),
                        now,
                        lastError,
                        lastErrorAt));
    }
}
