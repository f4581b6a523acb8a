package io.slurmlet.agent.system.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.SystemException;
import io.slurmlet.agent.system.Users;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The users port's writes in a user's home, for real, as nobody (65534), by root as the agent runs. */
class LinuxUsersTest {

    static final long NOBODY = 65534;

    @TempDir
    Path tmp;

    final LinuxUsers users = new LinuxUsers(new LinuxCommands());

    Path home() throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path home = tmp.resolve("home");
        assertTrue(users.ensurePrivateDirectory(home, NOBODY, NOBODY));
        assertFalse(users.ensurePrivateDirectory(home, NOBODY, NOBODY), "the second time nothing changes");
        return home;
    }

    @Test
    void keysAreWrittenAsTheUserOwnerOnlyAndOnceOnly() throws Exception {
        Path ssh = home().resolve(".ssh");
        Path keys = ssh.resolve("authorized_keys");
        assertTrue(
                users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("ssh-ed25519 AAAA k\n", Files.readString(keys));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)));
        assertEquals(NOBODY, ((Number) Files.getAttribute(keys, "unix:uid")).longValue());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ssh)));
        assertFalse(
                users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8)));
    }

    /** Every machine's agent writes a home on the shared storage at once (ClusterIT saw "mv: cannot stat …slurmlet-tmp"). */
    @Test
    void writersOfTheSameHomeAtOnceEachSucceedAndLeaveOneWholeFileAndNoTemporaryOne() throws Exception {
        Path ssh = home().resolve(".ssh");
        Path keys = ssh.resolve("authorized_keys");
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            java.util.List<java.util.concurrent.Future<Boolean>> writes = new java.util.ArrayList<>();
            for (int i = 0; i < 16; i++) {
                byte[] key = ("ssh-ed25519 AAAA k" + i + "\n").getBytes(StandardCharsets.UTF_8);
                writes.add(pool.submit(() -> users.writeAsUser(NOBODY, NOBODY, ssh, keys, key)));
            }
            for (var w : writes) {
                w.get(); // throws, as the step would fail, where a write lost its temporary file to another
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(Files.readString(keys).matches("ssh-ed25519 AAAA k\\d+\n"), Files.readString(keys));
        try (var left = Files.list(ssh)) {
            assertEquals(java.util.List.of(keys), left.toList(), "no temporary file is left");
        }
    }

    @Test
    void aLinkTheUserPutInTheirHomeLeadsNowhere() throws Exception {
        Path home = home();
        Path target = Files.createDirectory(tmp.resolve("etc-like"));
        Files.writeString(target.resolve("authorized_keys"), "root's own\n");
        Files.createSymbolicLink(home.resolve(".ssh"), target);
        SystemException e = assertThrows(
                SystemException.class,
                () -> users.writeAsUser(
                        NOBODY,
                        NOBODY,
                        home.resolve(".ssh"),
                        home.resolve(".ssh/authorized_keys"),
                        "evil\n".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
        assertEquals("root's own\n", Files.readString(target.resolve("authorized_keys")));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));

        Path linkedHome = tmp.resolve("linked");
        Files.createSymbolicLink(linkedHome, target);
        SystemException h =
                assertThrows(SystemException.class, () -> users.ensurePrivateDirectory(linkedHome, NOBODY, NOBODY));
        assertTrue(h.getMessage().contains("is a symbolic link, not a folder"), h.getMessage());
        assertEquals(
                0L,
                ((Number) Files.getAttribute(target, "unix:uid")).longValue(),
                "root never chowns what a link points to");
    }

    @Test
    void theKeysAreReadAsTheUserAndNeverThroughALink() throws Exception {
        Path home = home();
        Path ssh = home.resolve(".ssh");
        Path keys = ssh.resolve("authorized_keys");
        assertEquals(Optional.of(new Users.Dir("directory", "700", NOBODY, NOBODY)), users.directory(home));
        assertEquals(Optional.empty(), users.directory(tmp.resolve("none")));
        assertTrue(users.readAsUser(NOBODY, NOBODY, ssh, keys).content().isEmpty(), "no .ssh yet");
        users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(
                "ssh-ed25519 AAAA k\n",
                new String(
                        users.readAsUser(NOBODY, NOBODY, ssh, keys).content().orElseThrow(), StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(users.readAsUser(NOBODY, NOBODY, ssh, keys).content().isEmpty(), "not 0600: written again");

        Path target = Files.createDirectory(tmp.resolve("etc-like"));
        Files.writeString(target.resolve("authorized_keys"), "root's own\n");
        Path linked = tmp.resolve("other");
        users.ensurePrivateDirectory(linked, NOBODY, NOBODY);
        Files.createSymbolicLink(linked.resolve(".ssh"), target);
        Users.Held held =
                users.readAsUser(NOBODY, NOBODY, linked.resolve(".ssh"), linked.resolve(".ssh/authorized_keys"));
        assertTrue(held.linked() && held.content().isEmpty(), "a linked .ssh is said so, and not read");
        assertEquals(
                "symbolic link",
                users.directory(linked.resolve(".ssh")).orElseThrow().type());
    }

    /** A process run as a user is the user's: they can read its /proc/PID/environ, so nothing of the agent's is in it. */
    @Test
    void aCommandRunAsAUserHasOnlyThatUsersOwnEnvironment() throws Exception {
        String env = new LinuxCommands()
                .run(LinuxUsers.asUser(NOBODY, NOBODY, "env -0"), java.time.Duration.ofSeconds(10))
                .stdout();
        java.util.List<String> names = java.util.Arrays.stream(env.split("\0"))
                .filter(l -> !l.isEmpty())
                .map(l -> l.substring(0, l.indexOf('=')))
                .sorted()
                .toList();
        assertEquals(java.util.List.of("HOME", "LOGNAME", "PATH", "PWD", "SHELL", "USER"), names, env); // PWD: sh's own
        assertTrue(env.contains("USER=nobody"), env);
    }

    /** A user's 4 TiB sparse authorized_keys is neither read nor waited on: it is not the keys, and is written over. */
    @Test
    void aHugeKeyFileIsNotReadAndIsWrittenOverAtOnce() throws Exception {
        Path ssh = home().resolve(".ssh");
        Path keys = ssh.resolve("authorized_keys");
        users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8));
        try (var f = new java.io.RandomAccessFile(keys.toFile(), "rw")) {
            f.setLength(4L << 40);
        }
        // Before, both ran cat over the 4 TiB and failed at their deadline.
        assertEquals(Users.Held.NONE, users.readAsUser(NOBODY, NOBODY, ssh, keys), "too large to be the keys");
        assertTrue(
                users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("ssh-ed25519 AAAA k\n", Files.readString(keys));
    }

    /** A file the same size as the keys but other bytes is written; the same bytes, not. */
    @Test
    void aKeyFileOfTheSameSizeIsComparedByItsBytes() throws Exception {
        Path ssh = home().resolve(".ssh");
        Path keys = ssh.resolve("authorized_keys");
        users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8));
        Files.writeString(keys, "ssh-ed25519 BBBB k\n");
        assertTrue(
                users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("ssh-ed25519 AAAA k\n", Files.readString(keys));
        assertFalse(
                users.writeAsUser(NOBODY, NOBODY, ssh, keys, "ssh-ed25519 AAAA k\n".getBytes(StandardCharsets.UTF_8)));
    }
}
