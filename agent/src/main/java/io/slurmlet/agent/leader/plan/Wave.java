package io.slurmlet.agent.leader.plan;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The answers one publish woke (the machines whose polls waited for their new plans), timed from
 * when the planner began, after the change, to each answer's write to its machine's connection:
 * when the last is written, or given up (its connection gone), the leader logs how long the change
 * took to leave it, so an admin reads from the log what a change costs at the site's size
 * (bench/leader_load.py reads the same line). Each answer says once that it was written or not.
 */
public final class Wave {

    private static final Logger LOG = Logger.getLogger(Wave.class);

    private final long began;
    private final long[] took;
    private final AtomicInteger said = new AtomicInteger();
    /** Counted after each answer's time is kept: whoever counts the last reads every time (the counter's order). */
    private final AtomicInteger kept = new AtomicInteger();

    private final Consumer<String> log;

    /** @param began {@link System#nanoTime()} when the planning began; {@code size} answers follow */
    Wave(long began, int size) {
        this(began, size, LOG::info);
    }

    Wave(long began, int size, Consumer<String> log) {
        this.began = began;
        this.took = new long[size];
        this.log = log;
    }

    /** An answer of this wave left the leader (written to its connection), or not (the poll had ended: its time up, or its connection gone). */
    void written(boolean ok) {
        long ms = (System.nanoTime() - began) / 1_000_000;
        int at = said.getAndIncrement();
        if (at >= took.length) {
            return; // said twice: a caller's bug, never counted twice
        }
        took[at] = ok ? ms : -1;
        if (kept.incrementAndGet() == took.length) {
            log.accept(summary());
        }
    }

    /** What the log says once every answer of the wave has said. */
    String summary() {
        long[] times = Arrays.stream(took, 0, Math.min(kept.get(), took.length)).toArray();
        long[] sent = Arrays.stream(times).filter(t -> t >= 0).sorted().toArray();
        long lost = times.length - sent.length;
        if (sent.length == 0) {
            return "none of the %d new plans that polls waited for was written: the polls had ended (their time up, or their connections gone)"
                    .formatted(took.length);
        }
        String notWritten = lost == 0
                ? ""
                : "; %d not written (the poll had ended, its time up or its connection gone: that machine's next poll gets it)"
                        .formatted(lost);
        if (sent.length == 1) {
            return "the new plan of 1 waiting machine written to its connection %d ms after planning began%s"
                    .formatted(sent[0], notWritten);
        }
        return ("the new plans of %d waiting machines written to their connections %d ms (p50), %d ms (p99), %d ms (the last) after "
                        + "planning began%s")
                .formatted(sent.length, at(sent, 50), at(sent, 99), sent[sent.length - 1], notWritten);
    }

    private static long at(long[] sorted, int percent) {
        return sorted[Math.max(0, (int) Math.ceil(sorted.length * percent / 100.0) - 1)];
    }
}
