package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * slurmlet's packages as a site meets them. The DEB (packaging/target, made by the packaging
 * module) is read by lintian, then installed, started by systemd, upgraded to a newer build and
 * removed and purged on a real Debian 12 machine: a systemd-nspawn container booted with systemd,
 * from the local cluster's node image. The RPM is read by rpm's own tools and rpmlint.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackageIT {

    static final Path RUN = Path.of("/var/tmp/slurmlet-it-package");
    static final Path CLUSTER = AgentProcess.ROOT.resolve("system-tests/cluster/nspawn-cluster");
    static final Path MACHINES = RUN.resolve("machines");
    static final Path PACKAGES = RUN.resolve("packages");
    /** Where the node sees {@link #PACKAGES}. */
    static final String IN_NODE = "/var/tmp/slurmlet-packages/";

    static final String NODE = "p1";
    /** rpmlint errors that are not ours to fix, each with why. */
    static final Map<String, String> RPMLINT_ACCEPTED = Map.of(
            "no-signature", "packages are signed with the project's key when released, not by every build",
            "uncompressed-zip",
                    "jboss-logmanager's jar is stored uncompressed by its own build; we ship libraries as published");

    static Path deb;
    static Path rpm;
    static String version;
    static Path newerDeb;
    static String newerVersion;

    @BeforeAll
    static void packages() throws Exception {
        assertEquals(
                "0",
                Proc.run(List.of("id", "-u"), Map.of(), 10).out().strip(),
                "the package tests boot a container: run the system tests as root, as CI does");
        deb = Debs.newest("slurmlet_*_all.deb");
        rpm = Debs.newest("slurmlet-*.noarch.rpm");
        version = Debs.version(deb);
        Proc.run(List.of(CLUSTER.toString(), "down", MACHINES.toString()), Map.of(), 120);
        Proc.deleteTree(RUN);
        Files.createDirectories(PACKAGES);
        Files.copy(deb, PACKAGES.resolve(deb.getFileName()));
        newerDeb = Debs.newerBuild(deb, RUN.resolve("newer"), PACKAGES);
        newerVersion = Debs.version(newerDeb);
    }

    @AfterAll
    static void down() throws Exception {
        Proc.Result r = Proc.run(List.of(CLUSTER.toString(), "down", MACHINES.toString()), Map.of(), 120);
        assertEquals(0, r.exit(), r.toString());
        Proc.deleteTree(RUN);
    }

    static String host(List<String> command) throws IOException, InterruptedException {
        return Debs.host(command);
    }

    static Proc.Result on(String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(CLUSTER.toString(), "exec", MACHINES.toString(), NODE));
        args.addAll(Arrays.asList(command));
        return Proc.run(args, Map.of(), 300);
    }

    static String ok(String... command) throws IOException, InterruptedException {
        Proc.Result r = on(command);
        assertEquals(0, r.exit(), () -> NODE + ": " + String.join(" ", command) + "\n" + r);
        return r.out();
    }

    /** Installs a DEB from {@link #PACKAGES} with apt, as a site does; its output. */
    static String aptInstall(Path deb) throws IOException, InterruptedException {
        return ok(
                "env",
                "DEBIAN_FRONTEND=noninteractive",
                "apt-get",
                "install",
                "-y",
                "--no-install-recommends",
                IN_NODE + deb.getFileName());
    }

    static String sh(String script) throws IOException, InterruptedException {
        return ok("sh", "-c", script).strip();
    }

    static void await(Duration limit, String what, String... command) throws Exception {
        long end = System.nanoTime() + limit.toNanos();
        Proc.Result last = null;
        while (System.nanoTime() < end) {
            last = on(command);
            if (last.exit() == 0) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError(what + " within " + limit.toSeconds() + " s; last: " + last + "\njournal:\n"
                + on("journalctl", "-u", "slurmlet-agent", "--no-pager", "-n", "40")
                        .out());
    }

    /** The programs whose start-up cache (class-data archive or AOT cache) is in /var/cache/slurmlet, one each. */
    static List<String> startupCaches() throws IOException, InterruptedException {
        return sh("ls /var/cache/slurmlet")
                .lines()
                .filter(f -> f.endsWith(".jsa") || f.endsWith(".aot"))
                .map(f -> f.substring(0, f.indexOf('-')))
                .sorted()
                .toList();
    }

    @Test
    @Order(1)
    void lintianFindsNoErrorInTheDeb() throws Exception {
        Proc.Result r = Proc.run(List.of("lintian", "--no-tag-display-limit", deb.toString()), Map.of(), 300);
        List<String> errors = r.out().lines().filter(l -> l.startsWith("E:")).toList();
        assertEquals(List.of(), errors, "lintian's errors:\n" + r);
        // lintian exits 0 when it found no error (warnings do not count), 2 when it could not run.
        assertEquals(0, r.exit(), r.toString());
    }

    /**
     * The same DEB on Debian's stable (trixie, Java 21) and on forky (Java 25), each in that suite's
     * image: its lintian finds no error, apt installs it with the suite's own Java runtime, and the
     * launcher runs ctl on that Java.
     */
    @ParameterizedTest
    @ValueSource(strings = {"trixie", "forky"})
    @Order(1)
    void newerSuitesLintInstallAndRunTheDebOnTheirOwnJava(String suite) throws Exception {
        Proc.Result r = Proc.run(
                List.of(
                        AgentProcess.ROOT
                                .resolve("system-tests/cluster/suite-deb")
                                .toString(),
                        suite,
                        deb.toString()),
                Map.of(),
                600);
        assertTrue(r.out().startsWith("Lintian v"), "lintian ran in the " + suite + " image:\n" + r);
        List<String> errors = r.out().lines().filter(l -> l.startsWith("E:")).toList();
        assertEquals(List.of(), errors, suite + "'s lintian's errors:\n" + r);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("\ninstalled: " + version + "\n"), r.out());
        String java = suite.equals("trixie") ? "java-21-openjdk-amd64" : "java-25-openjdk-amd64";
        assertTrue(
                r.out().contains("\njava: /usr/lib/jvm/" + java + "/bin/java\n"),
                "the launcher runs the suite's Java:\n" + r.out());
    }

    @Test
    @Order(2)
    void theDebDeclaresWhatASiteNeeds() throws Exception {
        assertEquals(
                "default-jre-headless (>= 2:1.17) | java-runtime-headless (>= 17)",
                host(List.of("dpkg-deb", "-f", deb.toString(), "Depends")).strip());
        assertEquals(
                "/etc/slurmlet/agent.yaml",
                host(List.of("sh", "-c", "dpkg-deb --ctrl-tarfile " + deb + " | tar -xO ./conffiles"))
                        .strip());
        String contents = host(List.of("dpkg-deb", "-c", deb.toString()));
        for (String line : List.of(
                "-rwxr-xr-x root/root .* \\./usr/lib/slurmlet/bin/slurmlet-agent",
                "-rwxr-xr-x root/root .* \\./usr/lib/slurmlet/bin/ctl",
                "lrwxrwxrwx root/root .* \\./usr/bin/ctl -> \\.\\./lib/slurmlet/bin/ctl",
                "lrwxrwxrwx root/root .* \\./usr/sbin/slurmlet-agent -> \\.\\./lib/slurmlet/bin/slurmlet-agent",
                "-rw-r--r-- root/root .* \\./usr/lib/systemd/system/slurmlet-agent\\.service",
                "-rw-r--r-- root/root .* \\./etc/slurmlet/agent\\.yaml",
                "-rw-r--r-- root/root .* \\./usr/share/bash-completion/completions/ctl",
                "-rw-r--r-- root/root .* \\./usr/share/man/man1/ctl-slurm-lend\\.1\\.gz",
                "-rw-r--r-- root/root .* \\./usr/share/man/man8/slurmlet-agent\\.8\\.gz",
                "-rw-r--r-- root/root .* \\./usr/lib/slurmlet/lib/agent/quarkus-run\\.jar")) {
            assertTrue(contents.lines().anyMatch(l -> l.matches(line)), "the DEB holds " + line + ":\n" + contents);
        }
        assertFalse(contents.contains("./var/lib/slurmlet"), "the state directory is made by postinst, never shipped");
    }

    @Test
    @Order(3)
    void rpmsOwnToolsReadTheRpm() throws Exception {
        String rpmPath = rpm.toString();
        assertTrue(host(List.of("rpm", "-K", rpmPath)).contains("digests OK"));
        String requires = host(List.of("rpm", "-qp", "--requires", rpmPath));
        assertTrue(
                requires.contains(
                        "(java-17-openjdk-headless or java-21-openjdk-headless or java-25-openjdk-headless or jre-headless >= 1:17)"),
                requires);
        assertTrue(requires.lines().anyMatch("systemd"::equals), requires);
        assertEquals(
                "/etc/slurmlet/agent.yaml",
                host(List.of("rpm", "-qpc", rpmPath)).strip());
        String scripts = host(List.of("rpm", "-qp", "--scripts", rpmPath));
        assertTrue(scripts.contains("install -d -m 0700 /var/lib/slurmlet"), scripts);
        assertTrue(scripts.contains("preuninstall scriptlet"), scripts);
        assertTrue(scripts.contains("systemctl --no-reload disable --now slurmlet-agent.service"), scripts);
        assertTrue(scripts.contains("systemctl try-restart slurmlet-agent.service"), scripts);
        assertFalse(scripts.contains("rm -rf /var/lib/slurmlet"), "erasing the RPM keeps the state:\n" + scripts);
        for (String tag : List.of("POSTIN", "PREUN", "POSTUN")) {
            String body = host(List.of("rpm", "-qp", "--qf", "%{" + tag + "}", rpmPath));
            Path file = RUN.resolve(tag.toLowerCase() + ".sh");
            Files.writeString(file, body);
            host(List.of("sh", "-n", file.toString()));
        }
        String files = host(List.of("rpm", "-qplv", rpmPath));
        for (String line : List.of(
                "-rwxr-xr-x .* root +root .* /usr/lib/slurmlet/bin/slurmlet-agent",
                "-rw-r--r-- .* root +root .* /usr/lib/systemd/system/slurmlet-agent\\.service",
                "lrwxrwxrwx .* root +root .* /usr/bin/ctl -> \\.\\./lib/slurmlet/bin/ctl",
                "-rw-r--r-- .* root +root .* /usr/share/man/man1/ctl\\.1\\.gz")) {
            assertTrue(files.lines().anyMatch(l -> l.matches(line)), "the RPM holds " + line + ":\n" + files);
        }
        Proc.Result lint = Proc.run(List.of("rpmlint", rpmPath), Map.of(), 300);
        Set<String> errors = lint.out()
                .lines()
                .filter(l -> l.contains(": E: "))
                .map(l -> l.replaceFirst(".*: E: (\\S+).*", "$1"))
                .collect(Collectors.toCollection(java.util.TreeSet::new));
        assertTrue(lint.out().contains("packages and 0 specfiles checked"), "rpmlint ran:\n" + lint);
        errors.removeAll(RPMLINT_ACCEPTED.keySet());
        assertEquals(Set.of(), errors, "rpmlint's errors:\n" + lint.out());
    }

    @Test
    @Order(4)
    void installedOnAFreshMachineItStartsNothingUntilTold() throws Exception {
        String image = host(List.of(
                        AgentProcess.ROOT
                                .resolve("system-tests/cluster/node-image")
                                .toString(),
                        "ensure"))
                .strip();
        host(List.of(
                CLUSTER.toString(), "up", "--bind-ro", PACKAGES + ":" + IN_NODE, image, MACHINES.toString(), NODE));
        String out = aptInstall(deb);
        assertTrue(out.contains("On the leader's machine: systemctl enable --now slurmlet-agent"), out);
        assertEquals("install ok installed " + version, sh("dpkg-query -W -f '${Status} ${Version}' slurmlet"));
        assertEquals("700 root", sh("stat -c '%a %U' /var/lib/slurmlet"));
        assertEquals(
                "disabled",
                on("systemctl", "is-enabled", "slurmlet-agent").out().strip());
        assertEquals(
                "inactive", on("systemctl", "is-active", "slurmlet-agent").out().strip());
        assertEquals("", sh("ls -A /var/lib/slurmlet"), "nothing ran: no leader state was made");
        assertEquals(List.of("agent", "ctl"), startupCaches(), "postinst made this build's start-up caches");
        assertEquals(
                "", sh("ps -eo args | grep -v grep | grep quarkus-run.jar || true"), "no training run is left running");
        // Twice: the second run maps the start-up cache the first one made.
        assertTrue(ok("ctl", "--version").startsWith("ctl "), "ctl runs from PATH on the package's JRE");
        assertTrue(ok("ctl", "--version").startsWith("ctl "), "ctl runs again, with its start-up cache");
        Proc.Result noLeader = on("timeout", "60", "ctl", "slurm", "show");
        assertEquals(1, noLeader.exit(), "ctl without a leader says so and ends:\n" + noLeader);
        assertTrue(noLeader.err().contains("/run/slurmlet/leader.sock"), noLeader.toString());
        assertTrue(
                sh("ls /usr/share/bash-completion/completions/ctl /usr/share/man/man1/ctl.1.gz /usr/share/man/man8/slurmlet-agent.8.gz")
                        .contains("ctl.1.gz"));
        Proc.Result badJoin =
                on("slurmlet-agent", "join", "--leader", "http://n0:7818", "--token", "x", "--ca-hash", "sha256:00");
        assertEquals(2, badJoin.exit(), badJoin.toString());
        assertTrue(badJoin.err().contains("--leader must be the leader's https:// address"), badJoin.toString());
        assertEquals("1", sh("test -e /etc/slurmlet/join.env; echo $?"), "a refused join writes nothing");
    }

    @Test
    @Order(5)
    void startedBySystemdItLeads() throws Exception {
        ok("systemctl", "enable", "--now", "slurmlet-agent");
        await(Duration.ofSeconds(90), "the leader answers ctl", "ctl", "slurm", "show");
        ok("ctl", "slurm", "set", "partition=pkgtest");
        assertTrue(ok("ctl", "slurm", "show").contains("pkgtest"));
        assertEquals(
                "enabled", on("systemctl", "is-enabled", "slurmlet-agent").out().strip());
        assertEquals("700", sh("stat -c '%a' /run/slurmlet"), "the leader's socket folder is root-only");
        assertTrue(
                sh("ls /var/lib/slurmlet").contains("settings.json"), "the settings are stored in the state directory");
        String jvm = sh("tr '\\0' ' ' </proc/$(systemctl show -p MainPID --value slurmlet-agent)/cmdline");
        assertTrue(
                jvm.contains("-XX:+ExitOnOutOfMemoryError"),
                "a leader out of memory exits and systemd starts it again: " + jvm);
        assertTrue(
                jvm.contains("-Dio.netty.native.workdir=/var/cache/slurmlet/native "),
                "Netty's native libraries' folder: " + jvm);
        assertTrue(
                sh("journalctl -u slurmlet-agent --no-pager -o cat").contains("TLS by BoringSSL"),
                "the agents' channel's TLS");

        // A /tmp mounted noexec, as hardened machines have it: Netty's native libraries are copied into the launcher's
        // cache
        // folder, not /tmp (where the kernel refuses to map them), so the unix socket and BoringSSL work as before.
        ok("mkdir", "-p", "/etc/systemd/system/slurmlet-agent.service.d");
        ok(
                "sh",
                "-c",
                "printf '[Service]\nTemporaryFileSystem=/tmp:noexec\n' >/etc/systemd/system/slurmlet-agent.service.d/noexec-tmp.conf");
        try {
            String since = sh("date '+%Y-%m-%d %H:%M:%S'");
            ok("systemctl", "daemon-reload");
            ok("systemctl", "restart", "slurmlet-agent");
            await(Duration.ofSeconds(90), "the leader answers ctl with /tmp noexec", "ctl", "slurm", "show");
            assertTrue(
                    sh("grep ' /tmp ' /proc/$(systemctl show -p MainPID --value slurmlet-agent)/mounts")
                            .contains("noexec"),
                    "the agent's /tmp is noexec");
            String journal = sh("journalctl -u slurmlet-agent --no-pager -o cat --since '" + since + "'");
            assertTrue(journal.contains("TLS by BoringSSL") && !journal.contains("cannot be executed"), journal);
            assertTrue(ok("ctl", "slurm", "show").contains("pkgtest"));
        } finally {
            ok("rm", "-f", "/etc/systemd/system/slurmlet-agent.service.d/noexec-tmp.conf");
            ok("systemctl", "daemon-reload");
            ok("systemctl", "restart", "slurmlet-agent");
            await(Duration.ofSeconds(90), "the leader answers ctl again", "ctl", "slurm", "show");
        }
    }

    @Test
    @Order(6)
    void anUpgradeRestartsTheAgentOnTheNewBuildAndKeepsTheSitesFiles() throws Exception {
        sh("echo '# a site line, kept across upgrades' >>/etc/slurmlet/agent.yaml");
        String pidBefore = sh("systemctl show -p MainPID --value slurmlet-agent");
        String settingsBefore = sh("cat /var/lib/slurmlet/settings.json");
        // No --force-conf* option: a conffile the site changed and the package did not must not prompt.
        String out = aptInstall(newerDeb);
        assertEquals(
                "install ok installed " + newerVersion, sh("dpkg-query -W -f '${Status} ${Version}' slurmlet"), out);
        assertTrue(sh("tail -1 /usr/lib/slurmlet/bin/slurmlet-java").contains("the newer build"));
        assertTrue(sh("cat /etc/slurmlet/agent.yaml").contains("# a site line, kept across upgrades"));
        assertEquals(
                "", sh("ls /etc/slurmlet | grep dpkg || true"), "no .dpkg-new or .dpkg-old beside the site's file");
        assertEquals(
                "active", on("systemctl", "is-active", "slurmlet-agent").out().strip());
        assertEquals(List.of("agent", "ctl"), startupCaches(), "the old build's caches replaced by the new one's");
        String pidAfter = sh("systemctl show -p MainPID --value slurmlet-agent");
        assertNotEquals(pidBefore, pidAfter, "the agent restarted on the new build");
        assertTrue(
                sh("tr '\\0' '\\n' </proc/" + pidAfter + "/environ").contains("SLURMLET_TEST_BUILD=newer"),
                "it runs the newer unit (daemon-reload before the restart)");
        await(Duration.ofSeconds(90), "the upgraded leader answers ctl", "ctl", "slurm", "show");
        assertTrue(ok("ctl", "slurm", "show").contains("pkgtest"), "the settings survived the upgrade");
        assertEquals(settingsBefore, sh("cat /var/lib/slurmlet/settings.json"));
    }

    @Test
    @Order(7)
    void removeStopsTheAgentAndKeepsItsStatePurgeRemovesIt() throws Exception {
        ok("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "remove", "-y", "slurmlet");
        assertEquals("deinstall ok config-files", sh("dpkg-query -W -f '${Status}' slurmlet"));
        assertEquals(
                "inactive", on("systemctl", "is-active", "slurmlet-agent").out().strip());
        assertEquals("gone", sh("test -e /usr/lib/slurmlet || test -e /usr/bin/ctl || echo gone"));
        assertTrue(sh("ls /var/lib/slurmlet").contains("settings.json"), "remove keeps the state");
        assertTrue(
                sh("cat /etc/slurmlet/agent.yaml").contains("# a site line"), "remove keeps the site's configuration");

        ok("dpkg", "--purge", "slurmlet");
        assertEquals(
                "gone",
                sh(
                        "test -e /var/lib/slurmlet || test -e /var/cache/slurmlet || test -e /etc/slurmlet "
                                + "|| test -e /etc/systemd/system/multi-user.target.wants/slurmlet-agent.service || echo gone"));
        String status = sh("dpkg-query -W -f '${Status}' slurmlet 2>/dev/null || true");
        assertTrue(status.isEmpty() || status.endsWith(" not-installed"), "dpkg forgot the package: " + status);
        try (Stream<String> lines = on("systemctl", "list-units", "--all", "--no-legend", "slurmlet*")
                .out()
                .lines()) {
            assertEquals(
                    List.of(),
                    lines.filter(l -> !l.isBlank() && !l.contains("not-found")).toList(),
                    "no unit of slurmlet is loaded");
        }
    }

    /**
     * A newer build of the RPM, made by the packaging module's own script from this build's
     * programs and documents: a later ~dev version, the same files.
     */
    static Path newerRpm() throws IOException, InterruptedException {
        Path out = RUN.resolve("rebuild");
        Proc.deleteTree(out);
        Files.createDirectories(out);
        Debs.host(List.of(
                "cp",
                "-a",
                AgentProcess.ROOT.resolve("packaging/target/docs").toString(),
                out.resolve("docs").toString()));
        String base = rpmVersion().replaceFirst("~dev.*", "");
        Thread.sleep(1_100);
        Debs.host(List.of(
                AgentProcess.ROOT.resolve("packaging/build-packages").toString(), base + "-SNAPSHOT", out.toString()));
        try (var dir = Files.newDirectoryStream(out, "slurmlet-*.noarch.rpm")) {
            Path built = dir.iterator().next();
            Path copy = PACKAGES.resolve(built.getFileName());
            Files.copy(built, copy);
            return copy;
        }
    }

    static String rpmVersion() throws IOException, InterruptedException {
        return Debs.host(List.of("rpm", "-qp", "--qf", "%{VERSION}", rpm.toString()))
                .strip();
    }

    @Test
    @Order(8)
    void theRpmInstalledStartsNothingUntilToldThenLeads() throws Exception {
        Files.copy(rpm, PACKAGES.resolve(rpm.getFileName()));
        String out = ok("rpm", "-i", "--nodeps", IN_NODE + rpm.getFileName());
        assertTrue(out.contains("On the leader's machine: systemctl enable --now slurmlet-agent"), out);
        assertEquals("slurmlet-" + rpmVersion() + "-1.noarch", sh("rpm -q slurmlet"));
        assertEquals("700 root", sh("stat -c '%a %U' /var/lib/slurmlet"));
        assertEquals(List.of("agent", "ctl"), startupCaches(), "%post made this build's start-up caches");
        assertEquals(
                "inactive", on("systemctl", "is-active", "slurmlet-agent").out().strip());
        assertEquals(
                "disabled",
                on("systemctl", "is-enabled", "slurmlet-agent").out().strip());
        ok("systemctl", "enable", "--now", "slurmlet-agent");
        await(Duration.ofSeconds(90), "the leader answers ctl", "ctl", "slurm", "show");
        ok("ctl", "slurm", "set", "partition=rpmtest");
    }

    @Test
    @Order(9)
    void anRpmUpgradeRestartsTheAgentAndKeepsItsStateAndTheSitesFile() throws Exception {
        Path newer = newerRpm();
        sh("echo '# a site line, kept across upgrades' >>/etc/slurmlet/agent.yaml");
        String pidBefore = sh("systemctl show -p MainPID --value slurmlet-agent");
        ok("rpm", "-U", "--nodeps", IN_NODE + newer.getFileName());
        String version = Debs.host(List.of("rpm", "-qp", "--qf", "%{VERSION}", newer.toString()))
                .strip();
        assertNotEquals(rpmVersion(), version);
        assertEquals("slurmlet-" + version + "-1.noarch", sh("rpm -q slurmlet"), "one slurmlet, the newer");
        assertEquals(
                "active", on("systemctl", "is-active", "slurmlet-agent").out().strip());
        assertNotEquals(
                pidBefore,
                sh("systemctl show -p MainPID --value slurmlet-agent"),
                "%postun restarted the agent on the new build");
        assertTrue(sh("cat /etc/slurmlet/agent.yaml").contains("# a site line, kept across upgrades"));
        assertEquals("", sh("ls /etc/slurmlet | grep rpm || true"), "no .rpmnew or .rpmsave beside the site's file");
        assertEquals(List.of("agent", "ctl"), startupCaches(), "the old build's caches replaced by the new one's");
        await(Duration.ofSeconds(90), "the upgraded leader answers ctl", "ctl", "slurm", "show");
        assertTrue(ok("ctl", "slurm", "show").contains("rpmtest"), "the settings survived the upgrade");
    }

    @Test
    @Order(10)
    void erasingTheRpmStopsAndDisablesTheAgentAndKeepsItsState() throws Exception {
        ok("rpm", "-e", "--nodeps", "slurmlet");
        assertEquals(
                "inactive", on("systemctl", "is-active", "slurmlet-agent").out().strip());
        assertEquals(
                "gone",
                sh(
                        "test -e /usr/lib/slurmlet || test -e /usr/bin/ctl || test -e /etc/systemd/system/multi-user.target.wants/slurmlet-agent.service || echo gone"));
        assertTrue(sh("ls /var/lib/slurmlet").contains("settings.json"), "erase keeps the state (RPM has no purge)");
        assertTrue(
                sh("cat /etc/slurmlet/agent.yaml.rpmsave").contains("# a site line"),
                "the site's changed file is kept as .rpmsave");
    }
}
