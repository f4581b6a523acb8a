package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code lend} and {@code unlend} share: read {@code lent}, add or remove all the nodes named
 * at once, write it onto the revision read (again on a conflict), and say which nodes already were
 * as asked; or, for a dry run, send the same patch as a preview and print what each machine would
 * do. With {@code --wait}, then follow the nodes until they are there ({@link LendingWait}). Host
 * names ignore case, so these comparisons do too.
 */
final class LentNodes {

    private LentNodes() {}

    static int change(Session session, List<String> nodes, boolean lend, boolean dryRun, WaitOptions wait) {
        List<String> asked = new ArrayList<>();
        for (String n : nodes) {
            if (!contains(asked, n)) {
                asked.add(n);
            }
        }
        PrintWriter notes = session.json() ? session.err() : session.out();
        try (Leader leader = session.connect()) {
            if (dryRun) {
                Leader.Preview p = leader.preview(
                        read -> patch(next(read.value().settings().lent(), asked, lend)));
                already(p.before().value().settings().lent(), asked, lend)
                        .forEach(n -> notes.println(n + (lend ? " is already lent" : " is not lent")));
                notes.flush();
                if (session.json()) {
                    session.printJson(p.preview().body());
                } else {
                    DryRun.print(session.out(), p.preview().value());
                }
                return 0;
            }
            LendingWait following =
                    wait.wait ? LendingWait.before(leader, asked, lend, wait.timeout, session.pollInterval()) : null;
            Leader.Change change = leader.change(read -> {
                List<String> lent = read.value().settings().lent();
                List<String> next = next(lent, asked, lend);
                return next.equals(lent) ? Optional.empty() : Optional.of(patch(next));
            });
            List<String> was = change.before().value().settings().lent();
            List<String> already = already(was, asked, lend);
            List<String> changed =
                    asked.stream().filter(n -> !already.contains(n)).toList();

            already.forEach(n -> notes.println(n + (lend ? " is already lent" : " is not lent")));
            if (change.after().isEmpty()) {
                if (session.json()) {
                    session.printJson(change.before().body());
                } else {
                    notes.println("nothing to change (revision %d)"
                            .formatted(change.before().value().revision()));
                }
            } else if (session.json()) {
                session.printJson(change.after().get().body());
            } else {
                session.out()
                        .println("%s %s (revision %d)"
                                .formatted(
                                        lend ? "lent" : "unlent",
                                        String.join(", ", changed),
                                        change.after().get().value().revision()));
            }
            notes.flush();
            session.out().flush();
            return following == null ? 0 : following.follow(notes, session.err());
        }
    }

    /** {@code lent} with the nodes asked added (in the order asked) or removed. */
    private static List<String> next(List<String> lent, List<String> asked, boolean lend) {
        List<String> next = new ArrayList<>(lent);
        if (lend) {
            asked.stream().filter(n -> !contains(lent, n)).forEach(next::add);
        } else {
            next.removeIf(n -> contains(asked, n));
        }
        return next;
    }

    /** The nodes asked that already are as asked. */
    private static List<String> already(List<String> lent, List<String> asked, boolean lend) {
        return asked.stream().filter(n -> contains(lent, n) == lend).toList();
    }

    private static ObjectNode patch(List<String> lent) {
        ObjectNode patch = Leader.JSON.createObjectNode();
        ArrayNode array = patch.putArray("lent");
        lent.forEach(array::add);
        return patch;
    }

    private static boolean contains(List<String> names, String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return names.stream().anyMatch(x -> x.toLowerCase(Locale.ROOT).equals(n));
    }
}
