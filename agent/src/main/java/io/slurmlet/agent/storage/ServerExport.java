package io.slurmlet.agent.storage;

import io.slurmlet.agent.reconcile.Reconciler.Held;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.text.Text;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A client's wait for its server, a slurmlet machine, to export the shared storage: both machines'
 * storage steps act on the same settings at once, and the server's may first install its NFS server.
 */
final class ServerExport {

    /** How long a mount waits for its server to export. */
    static final Duration GRACE = Duration.ofMinutes(5);

    private final Commands commands;
    private final Clock clock;
    /** The export this machine waits for its server to export, and since when; null while it waits for none. */
    private String awaited;

    private Instant awaitedSince;

    ServerExport(Commands commands, Clock clock) {
        this.commands = commands;
        this.clock = clock;
    }

    /** Forgets the wait unless {@code plan} still mounts the export it was for. */
    void forgetUnless(StoragePlan plan) {
        if (!(plan instanceof StoragePlan.Mount m && m.source().equals(awaited))) {
            awaited = null;
        }
    }

    /**
     * Holds a mount of a slurmlet server's export back while that server does not list it ({@code
     * showmount -e}; both machines' steps act on the same settings at once, and the server's may
     * first install its NFS server); past {@link #GRACE} the mount is tried, and fails
     * with the server's own answer. Where showmount is not installed, the mount is tried at once.
     */
    void await(StoragePlan.Mount mount) throws SystemException {
        String server = mount.source().substring(0, mount.source().indexOf(':'));
        String why;
        try {
            Commands.Result r =
                    commands.run(List.of("showmount", "-e", "--no-headers", server), Duration.ofSeconds(10));
            boolean listed = r.exit() == 0 && r.stdout().lines().anyMatch(l -> l.split("\\s+")[0].equals(mount.path()));
            if (listed) {
                awaited = null;
                return;
            }
            why = r.exit() == 0
                    ? "it does not list " + mount.path() + " yet"
                    : Text.oneLine(r.stderr().strip());
        } catch (CommandFailed e) {
            if (e.kind() == CommandFailed.Kind.NOT_FOUND) {
                return;
            }
            why = e.getMessage();
        }
        Instant now = clock.instant();
        if (!mount.source().equals(awaited)) {
            awaited = mount.source();
            awaitedSince = now;
        }
        if (Duration.between(awaitedSince, now).compareTo(GRACE) < 0) {
            throw new Held("mounting %s at %s waits for %s to export it (showmount -e %s: %s)"
                    .formatted(mount.source(), mount.path(), server, server, why));
        }
    }
}
