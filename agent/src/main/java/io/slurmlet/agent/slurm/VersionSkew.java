package io.slurmlet.agent.slurm;

import java.util.List;
import java.util.Optional;

/**
 * Which slurmd versions a slurmctld talks to. slurmd may be older than slurmctld by at most two
 * major releases (three from 24.05 on, when releases came every six months), and never newer.
 */
public final class VersionSkew {

    /** Slurm's major releases in order. */
    static final List<String> RELEASES = List.of(
            "20.02", "20.11", "21.08", "22.05", "23.02", "23.11", "24.05", "24.11", "25.05", "25.11", "26.05", "26.11",
            "27.05", "27.11");

    private VersionSkew() {}

    /**
     * Why a slurmd of {@code node} cannot work with a slurmctld of {@code controller}, naming both
     * versions and the fix; empty when it can.
     */
    public static Optional<String> problem(
            String nodeName, SlurmVersion node, String controllerName, SlurmVersion controller) {
        if (node.year() > controller.year()
                || (node.year() == controller.year() && node.month() > controller.month())) {
            return Optional.of(("%s has Slurm %s, newer than the controller %s's %s: slurmctld must be at least as new "
                            + "as every slurmd; upgrade Slurm on %s first, or install %s on %s")
                    .formatted(
                            nodeName,
                            node,
                            controllerName,
                            controller,
                            controllerName,
                            controller.release(),
                            nodeName));
        }
        int behind = distance(node, controller);
        int allowed = controller.atLeast(24, 5) ? 3 : 2;
        if (behind > allowed) {
            return Optional.of(("%s has Slurm %s, %d major releases older than the controller %s's %s; slurmctld %s "
                            + "talks to slurmd up to %d releases older: upgrade Slurm on %s to %s or later")
                    .formatted(
                            nodeName,
                            node,
                            behind,
                            controllerName,
                            controller,
                            controller.release(),
                            allowed,
                            nodeName,
                            RELEASES.get(Math.max(0, RELEASES.indexOf(controller.release()) - allowed))));
        }
        return Optional.empty();
    }

    /** How many major releases {@code older} is behind {@code newer}; by half-years where a release is unknown. */
    static int distance(SlurmVersion older, SlurmVersion newer) {
        int a = RELEASES.indexOf(older.release());
        int b = RELEASES.indexOf(newer.release());
        if (a >= 0 && b >= 0) {
            return b - a;
        }
        return Math.max(0, ((newer.year() * 12 + newer.month()) - (older.year() * 12 + older.month())) / 6);
    }
}
