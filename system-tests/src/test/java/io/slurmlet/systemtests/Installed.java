package io.slurmlet.systemtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * slurmlet as its DEB installs it, without touching this machine: the newest DEB the packaging
 * module built, unpacked once per version into {@code system-tests/target/installed-VERSION}. The
 * system tests run the agent and ctl from there, through the package's own launchers.
 */
final class Installed {

    private static Path root;

    private Installed() {}

    /** The unpacked root (its {@code usr/lib/slurmlet} is what {@code /usr/lib/slurmlet} would be). */
    static synchronized Path root() {
        if (root == null) {
            try {
                Path deb = Debs.newest("slurmlet_*_all.deb");
                Path dir = AgentProcess.ROOT.resolve("system-tests/target/installed-" + Debs.version(deb));
                if (!Files.isRegularFile(dir.resolve("usr/lib/slurmlet/bin/slurmlet-java"))) {
                    // Two test JVMs may unpack at once (failsafe runs two classes at a time): each
                    // into a folder of its own, then renamed into place; the second rename finds
                    // the first one's folder and its own is dropped.
                    Files.createDirectories(dir.getParent());
                    Path tmp = Files.createTempDirectory(dir.getParent(), dir.getFileName() + ".tmp-");
                    try {
                        Debs.host(List.of("dpkg-deb", "-x", deb.toString(), tmp.toString()));
                        if (Files.exists(dir)
                                && !Files.isRegularFile(dir.resolve("usr/lib/slurmlet/bin/slurmlet-java"))) {
                            Proc.deleteTree(dir); // a partial one of an older harness that unpacked in place
                        }
                        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
                    } catch (FileSystemException e) {
                        // rename(2) onto the other JVM's folder: "Directory not empty", not always
                        // DirectoryNotEmptyException
                        if (!Files.isRegularFile(dir.resolve("usr/lib/slurmlet/bin/slurmlet-java"))) {
                            throw e;
                        }
                    } finally {
                        Proc.deleteTree(tmp);
                    }
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
