package io.slurmlet.agent.api;

import io.quarkus.vertx.http.DomainSocketServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The leader's unix socket lets root on this machine in without a token, so only root may reach
 * it: the socket is made owner-only as soon as it exists, and a folder others can enter is
 * reported (the systemd unit makes {@code /run/slurmlet} 0700, which closes the moment between
 * bind and chmod).
 */
@ApplicationScoped
public class LeaderSocket {

    private static final Logger LOG = Logger.getLogger(LeaderSocket.class);
    private static final Set<PosixFilePermission> OPEN_TO_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE);

    void restrict(@ObservesAsync DomainSocketServerStart start) throws IOException {
        Path socket = Path.of(start.options().getHost());
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        Path dir = socket.toAbsolutePath().getParent();
        Set<PosixFilePermission> dirMode = Files.getPosixFilePermissions(dir);
        if (dirMode.stream().anyMatch(OPEN_TO_OTHERS::contains)) {
            LOG.warnf(
                    "the leader's socket %s is in %s, which others can enter (%s): make that folder 0700",
                    socket, dir, PosixFilePermissions.toString(dirMode));
        }
    }
}
