package io.slurmlet.agent.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which Slurm release wrote slurmctld's saved state, and whether another release can start from
 * it. slurmctld saves its state (StateSaveLocation) with the release's protocol version first in
 * {@code assoc_usage} (two bytes, big-endian: major × 256); a slurmctld started on state it cannot
 * read exits at once ("Can not recover assoc_usage state, incompatible version, got 9728 need >=
 * 9984 <= 10752", 24.11 on 22.05's state: system-tests/slurm/FINDINGS.md). Slurm reads the state
 * of its own release and of the two releases before it, three from 24.11 on (SchedMD's upgrade
 * guide), never a later release's. The protocol numbers were read from the state each of Debian's
 * 22.05, 24.11 and 26.05 wrote (FINDINGS.md, "Saved state per version"); those between follow
 * Slurm's one step per release.
 */
public final class SavedState {

    /** Slurm's major releases in order, from the one whose protocol major is {@link #FIRST_PROTOCOL}. */
    static final List<String> RELEASES = List.of(
            "20.02", "20.11", "21.08", "22.05", "23.02", "23.11", "24.05", "24.11", "25.05", "25.11", "26.05", "26.11");

    static final int FIRST_PROTOCOL = 35;

    private SavedState() {}

    /** How many releases back the release at {@code index} reads state from. */
    private static int reach(int index) {
        return index >= RELEASES.indexOf("24.11") ? 3 : 2;
    }

    /** The release whose protocol version is {@code protocol} (as the state file holds it); empty: none known. */
    public static Optional<String> release(int protocol) {
        int i = (protocol >> 8) - FIRST_PROTOCOL;
        return i >= 0 && i < RELEASES.size() ? Optional.of(RELEASES.get(i)) : Optional.empty();
    }

    /**
     * What keeps {@code daemon}'s slurmctld from state written by {@code wrote}.
     *
     * @param wrote  the release that wrote the state
     * @param newer  it is newer than the daemon's, which no release reads
     * @param oldest the oldest release whose state the daemon reads
     * @param step   the releases to go through, oldest first, each the latest that reads the one before's state
     *               (as {@code 23.11}, or {@code 21.08, then 23.02} for a longer way)
     */
    public record Gap(String wrote, boolean newer, String oldest, String step) {}

    /** Why {@code daemon} cannot start from state saved with {@code protocol}; empty when it can, or nothing (known) is saved. */
    public static Optional<Gap> gap(SlurmVersion daemon, int protocol) {
        Optional<String> wrote = release(protocol);
        int own = RELEASES.indexOf(daemon.release());
        if (protocol != 0 && wrote.isEmpty() && (protocol >> 8) >= FIRST_PROTOCOL + RELEASES.size() && own >= 0) {
            // Written by a release after every one this table knows: newer than any daemon it knows.
            return Optional.of(new Gap("a release after " + RELEASES.get(RELEASES.size() - 1), true, "", ""));
        }
        if (protocol == 0 || wrote.isEmpty() || own < 0) {
            return Optional.empty();
        }
        int state = RELEASES.indexOf(wrote.get());
        if (state > own) {
            return Optional.of(new Gap(wrote.get(), true, "", ""));
        }
        if (own - state <= reach(own)) {
            return Optional.empty();
        }
        // The releases to go through, each the furthest that reads the last one's state.
        List<String> steps = new ArrayList<>();
        for (int at = state; own - at > reach(own); ) {
            int furthest = at;
            for (int j = at + 1; j < own; j++) {
                if (j - at <= reach(j)) {
                    furthest = j;
                }
            }
            steps.add(RELEASES.get(furthest));
            at = furthest;
        }
        return Optional.of(new Gap(wrote.get(), false, RELEASES.get(own - reach(own)), String.join(", then ", steps)));
    }

    /**
     * Why the installed {@code daemon}'s slurmctld cannot start from state saved with {@code protocol},
     * and what to do; empty when it can (or no state is saved: protocol 0, or a release this table does not know).
     *
     * @param where the state's folder, for the message
     */
    public static Optional<String> cannotStart(SlurmVersion daemon, int protocol, String where) {
        return gap(daemon, protocol)
                .map(g -> g.newer()
                        ? ("slurmctld's saved state in %s was written by Slurm %s, newer than the installed %s, which cannot read it: "
                                        + "install %s or later again")
                                .formatted(where, g.wrote(), daemon.release(), g.wrote())
                        : ("slurmctld's saved state in %s was written by Slurm %s, and the installed %s reads only the state of %s or "
                                        + "later, so slurmctld would exit at its start: slurmlet does not start it. Upgrade in steps: install Slurm %s on "
                                        + "this machine, starting slurmctld once on each (it saves its state anew), then %s; or move %s aside to start afresh, "
                                        + "which loses every queued and running job")
                                .formatted(
                                        where,
                                        g.wrote(),
                                        daemon.release(),
                                        g.oldest(),
                                        g.step(),
                                        daemon.release(),
                                        where));
    }

    /**
     * What to do before the package manager installs {@code next}, which could not start from the
     * state saved with {@code protocol}; empty when it could.
     */
    public static Optional<String> beforeUpgradeTo(SlurmVersion next, int protocol, String where) {
        return gap(next, protocol)
                .filter(g -> !g.newer())
                .map(g -> ("the package manager would upgrade slurmctld to %s, which reads "
                                + "only the state of %s or later, and the state in %s was written by %s: before that upgrade, go through Slurm %s "
                                + "(install it and start slurmctld once on each), or keep slurmctld back (apt-mark hold slurmctld); slurmlet would not start "
                                + "%s on this state")
                        .formatted(next.release(), g.oldest(), where, g.wrote(), g.step(), next.release()));
    }
}
