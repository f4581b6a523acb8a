package io.slurmlet.agent.node;

import io.slurmlet.model.observed.ClockSeen;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.Optional;

/**
 * The leader's clock as this machine estimates it, from its status reports' round trips: each answer
 * says the leader's time, taken to be that of the middle of the round trip (as NTP takes a server's),
 * within half the round trip. The estimate is the sample of the shortest round trip among the last
 * {@value #KEPT} (a trip slowed one way only moves its sample by up to half of it), all from the
 * leader that answered last (another leader, after a failover, starts the samples anew). Before any
 * sample, and from a leader that does not say its time, it is this machine's own clock. A munge
 * key's switch waits by it, so that every machine switches at the leader's moment however far its
 * own clock is off.
 */
public final class LeaderClock implements InstantSource {

    static final int KEPT = 8;

    private record Sample(long aheadMs, long errorMs) {}

    private final Clock own;
    private final Deque<Sample> samples = new ArrayDeque<>();
    private URI from;
    private volatile Optional<Sample> best = Optional.empty();

    public LeaderClock(Clock own) {
        this.own = own;
    }

    /** This machine's own clock, by which a round trip is timed. */
    Instant own() {
        return own.instant();
    }

    /**
     * One round trip to the leader at {@code address}: sent at {@code sent} and answered at
     * {@code received} by this machine's clock, the leader saying {@code leader} by its own. One this
     * machine's clock went back during is not taken.
     */
    synchronized void sample(URI address, Instant sent, Instant leader, Instant received) {
        long trip = Duration.between(sent, received).toMillis();
        if (trip < 0) {
            return;
        }
        if (!address.equals(from)) {
            samples.clear();
            from = address;
        }
        long middle = sent.toEpochMilli() + trip / 2;
        samples.addLast(new Sample(middle - leader.toEpochMilli(), (trip + 1) / 2));
        while (samples.size() > KEPT) {
            samples.removeFirst();
        }
        best = samples.stream().min(Comparator.comparingLong(Sample::errorMs));
    }

    /** This machine's clock against the leader's; empty before an answer said the leader's time. */
    public Optional<ClockSeen> seen() {
        return best.map(s -> new ClockSeen(s.aheadMs(), s.errorMs()));
    }

    /** Now, by the leader's clock as estimated. */
    @Override
    public Instant instant() {
        Instant now = own.instant();
        return best.map(s -> now.minusMillis(s.aheadMs())).orElse(now);
    }
}
