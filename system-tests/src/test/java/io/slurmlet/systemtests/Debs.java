package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** slurmlet's DEB as the packaging module built it, and a newer build of it for upgrades. */
final class Debs {

    private Debs() {}

    /** The newest file in packaging/target matching {@code glob}. */
    static Path newest(String glob) throws IOException {
        Path target = AgentProcess.ROOT.resolve("packaging/target");
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(target)) {
            try (var dir = Files.newDirectoryStream(target, glob)) {
                dir.forEach(found::add);
            }
        }
        return found.stream()
                .max(Comparator.comparing(p -> p.toFile().lastModified()))
                .orElseThrow(() -> new AssertionError(
                        "no " + glob + " in " + target + ": build the project first (./mvnw package)"));
    }

    static String version(Path deb) throws IOException, InterruptedException {
        return host(List.of("dpkg-deb", "-f", deb.toString(), "Version")).strip();
    }

    /**
     * A newer build of {@code deb} in {@code outDir}, as the next release would be: version
     * {@code VERSION.1}, a launcher that differs, and a unit that sets one more variable
     * (SLURMLET_TEST_BUILD=newer), so that the upgrade's daemon-reload and restart are seen.
     * {@code work} is a scratch folder (replaced).
     */
    static Path newerBuild(Path deb, Path work, Path outDir) throws IOException, InterruptedException {
        String version = version(deb);
        String newer = version + ".1";
        Proc.deleteTree(work);
        host(List.of("dpkg-deb", "-R", deb.toString(), work.toString()));
        Path control = work.resolve("DEBIAN/control");
        Files.writeString(
                control, Files.readString(control).replace("Version: " + version + "\n", "Version: " + newer + "\n"));
        Path launcher = work.resolve("usr/lib/slurmlet/bin/slurmlet-java");
        Files.writeString(launcher, Files.readString(launcher) + "# the newer build\n");
        Path unit = work.resolve("usr/lib/systemd/system/slurmlet-agent.service");
        Files.writeString(
                unit,
                Files.readString(unit).replace("[Service]\n", "[Service]\nEnvironment=SLURMLET_TEST_BUILD=newer\n"));
        String sums = host(List.of(
                "sh",
                "-c",
                "cd " + work + " && md5sums=$(cat DEBIAN/md5sums) && "
                        + "echo \"$md5sums\" | grep -v -e ' usr/lib/slurmlet/bin/slurmlet-java$' -e ' usr/lib/systemd/system/slurmlet-agent.service$'; "
                        + "md5sum usr/lib/slurmlet/bin/slurmlet-java usr/lib/systemd/system/slurmlet-agent.service"));
        Files.writeString(work.resolve("DEBIAN/md5sums"), sums);
        Files.createDirectories(outDir);
        Path out = outDir.resolve("slurmlet_" + newer + "_all.deb");
        host(List.of("dpkg-deb", "--root-owner-group", "-Zgzip", "-z1", "--build", work.toString(), out.toString()));
        Proc.deleteTree(work);
        return out;
    }

    static String host(List<String> command) throws IOException, InterruptedException {
        Proc.Result r = Proc.run(command, Map.of(), 300);
        assertEquals(0, r.exit(), () -> String.join(" ", command) + "\n" + r);
        return r.out();
    }
}
