package io.slurmlet.systemtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * slurmlet as its DEB installs it, without touching this machine: the newest DEB the packaging
 * module built, unpacked once per version into {@code system-tests/target/installed-VERSION}. The
 * system tests run the agent and ctl from there, through the package's own launchers.
 */
final class Installed {

    private static Path root;

    private Installed() {
    }

    /** The unpacked root (its {@code usr/lib/slurmlet} is what {@code /usr/lib/slurmlet} would be). */
    static synchronized Path root() {
        if (root == null) {
            try {
                Path deb = Debs.newest("slurmlet_*_all.deb");
                Path dir = AgentProcess.ROOT.resolve("system-tests/target/installed-" + Debs.version(deb));
                if (!Files.isRegularFile(dir.resolve("usr/lib/slurmlet/bin/slurmlet-java"))) {
                    Path tmp = dir.resolveSibling(dir.getFileName() + ".tmp");
                    Proc.deleteTree(tmp);
                    Debs.host(List.of("dpkg-deb", "-x", deb.toString(), tmp.toString()));
                    Proc.deleteTree(dir);
                    Files.move(tmp, dir);
                }
                root = dir;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return root;
    }

    static Path bin(String launcher) {
        return root().resolve("usr/lib/slurmlet/bin").resolve(launcher);
    }
}
