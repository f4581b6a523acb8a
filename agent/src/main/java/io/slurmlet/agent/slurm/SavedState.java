package io.slurmlet.agent.slurm;

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
    static final List<String> RELEASES = List.of("20.02", "20.11", "21.08", "22.05", "23.02", "23.11", "24.05", "24.11",
            "25.05", "25.11", "26.05", "26.11");
    static final int FIRST_PROTOCOL = 35;

    private SavedState() {
    }

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
     * Why {@code daemon}'s slurmctld cannot start from state saved with {@code protocol}, and what
     * to do; empty when it can (or no state is saved: protocol 0, or a release this table does not know).
     *
     * @param where the state's folder, for the message
     */
    public static Optional<String> cannotStart(SlurmVersion daemon, int protocol, String where) {
        Optional<String> wrote = release(protocol);
        int own = RELEASES.indexOf(daemon.release());
        if (protocol == 0 || wrote.isEmpty() || own < 0) {
            return Optional.empty();
        }
        int state = RELEASES.indexOf(wrote.get());
        int reach = reach(own);
        if (state > own) {
            return Optional.of(("slurmctld's saved state in %s was written by Slurm %s, newer than the installed %s, which "
                    + "cannot read it: install %s or later again").formatted(where, wrote.get(), daemon.release(), wrote.get()));
        }
        if (own - state <= reach) {
            return Optional.empty();
        }
        String oldest = RELEASES.get(own - reach);
        int furthest = state;
        for (int j = state + 1; j < own; j++) {
            if (j - state <= reach(j)) {
                furthest = j;
            }
        }
        String step = RELEASES.get(furthest);
        return Optional.of(("slurmctld's saved state in %s was written by Slurm %s, and the installed %s reads only the state "
                + "of %s or later, so slurmctld would exit at its start: slurmlet does not start it. Upgrade in steps: install "
                + "Slurm %s on this machine and start slurmctld once (it saves its state anew), then %s; or move %s aside to "
                + "start afresh, which loses every queued and running job").formatted(where, wrote.get(), daemon.release(), oldest,
                step, daemon.release(), where));
    }
}
