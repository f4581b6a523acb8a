package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.agent.system.Users;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link Users} with getent, groupadd, useradd, usermod and install, as every Linux distribution has them. */
public final class LinuxUsers implements Users {

    static final Duration DEADLINE = Duration.ofSeconds(30);
    /** useradd refuses UIDs above its UID_MAX (60000 on Debian) unless told otherwise. */
    static final List<String> HIGH_IDS = List.of("-K", "UID_MAX=4294967294", "-K", "GID_MAX=4294967294");

    private final Commands commands;

    public LinuxUsers(Commands commands) {
        this.commands = commands;
    }

    @Override
    public Optional<Entry> user(String login) throws SystemException {
        Commands.Result r = commands.run(List.of("getent", "passwd", login), DEADLINE);
        if (r.exit() == 2) {
            return Optional.empty();
        }
        String[] f =
                r.orThrow(List.of("getent", "passwd", login)).stdout().strip().split(":", -1);
        if (f.length < 7) {
            return Optional.empty();
        }
        Commands.Result shadow = commands.run(List.of("getent", "shadow", login), DEADLINE);
        String[] s = shadow.stdout().strip().split(":", -1);
        boolean expired = s.length > 7
                && !s[7].isEmpty()
                && !s[7].equals("-1")
                && Long.parseLong(s[7]) <= LocalDate.now().toEpochDay();
        return Optional.of(new Entry(f[0], Long.parseLong(f[2]), Long.parseLong(f[3]), f[5], f[4], expired));
    }

    @Override
    public Optional<Long> group(String name) throws SystemException {
        Commands.Result r = commands.run(List.of("getent", "group", name), DEADLINE);
        if (r.exit() == 2) {
            return Optional.empty();
        }
        String[] f =
                r.orThrow(List.of("getent", "group", name)).stdout().strip().split(":", -1);
        return f.length > 2 ? Optional.of(Long.parseLong(f[2])) : Optional.empty();
    }

    @Override
    public void addGroup(String name, long gid) throws SystemException {
        List<String> argv = new ArrayList<>(List.of("groupadd", "-g", Long.toString(gid)));
        argv.addAll(HIGH_IDS);
        argv.add(name);
        commands.runChecked(argv, DEADLINE);
    }

    @Override
    public void addUser(String login, long uid, long gid, String home, String comment) throws SystemException {
        List<String> argv = new ArrayList<>(List.of(
                "useradd",
                "-M",
                "-u",
                Long.toString(uid),
                "-g",
                Long.toString(gid),
                "-d",
                home,
                "-s",
                "/bin/bash",
                "-c",
                comment));
        argv.addAll(HIGH_IDS);
        argv.add(login);
        commands.runChecked(argv, DEADLINE);
    }

    @Override
    public void setExpired(String login, boolean expired) throws SystemException {
        commands.runChecked(List.of("usermod", "-e", expired ? "1" : "", login), DEADLINE);
    }

    /**
     * How long a read or write in a user's home may take. A key file is a few KiB: a user who
     * makes theirs slow to read (a huge sparse file, a file on a mount of their own) costs the
     * step this much for their own account, and nothing for anyone else's.
     */
    static final Duration IN_HOME = Duration.ofSeconds(5);

    /** The most of a user's authorized_keys that is read; a larger file is not the keys slurmlet wrote, and is written again. */
    static final long MOST_KEYS = 64 * 1024;

    /**
     * The argv that runs {@code script} (with {@code args} as $1, $2, …) as uid:gid, without
     * root's groups, in an environment made anew for that user ({@code setpriv --reset-env}: HOME,
     * USER, LOGNAME, SHELL and the default PATH of the user's passwd entry): the process is the
     * user's, who can read its environment in /proc, so nothing of the agent's may be in it.
     */
    static List<String> asUser(long uid, long gid, String script, String... args) {
        List<String> argv = new ArrayList<>(List.of(
                "setpriv",
                "--reuid=" + uid,
                "--regid=" + gid,
                "--clear-groups",
                "--reset-env",
                "--",
                "sh",
                "-c",
                script,
                "sh"));
        argv.addAll(List.of(args));
        return argv;
    }

    /**
     * The shell the user's writes run in: no variable of ours, no profile, the paths as arguments.
     * The file is written beside its place under a name of this machine's and this shell's own, then
     * renamed over it: every machine's agent writes the same home on shared storage at once. What
     * is there is compared only where its size is the new content's ($4), so a huge file is never read.
     */
    static final String AS_USER = "umask 077; [ -L \"$1\" ] && { echo \"$1 is a symbolic link\" >&2; exit 3; }; "
            + "mkdir -p \"$1\" && chmod 0700 \"$1\" || exit 4; "
            + "[ -f \"$2\" ] && [ ! -L \"$2\" ] && [ \"$(stat -c %s:%a \"$2\")\" = \"$4:600\" ] "
            + "&& [ \"$(head -c \"$4\" \"$2\"; echo x)\" = \"$(printf '%s' \"$3\"; echo x)\" ] && exit 10; "
            + "t=\"$2.slurmlet-tmp.$(uname -n).$$\"; "
            + "printf '%s' \"$3\" > \"$t\" && mv -f \"$t\" \"$2\" && chmod 0600 \"$2\" || { rm -f \"$t\"; exit 5; }";

    /**
     * The shell the user's reads run in: 3 for a linked folder, 11 for no 0600 file in a 0700
     * folder, 12 for a file larger than $3 bytes (never read); else the file, at most $3 bytes of it.
     */
    static final String READ_AS_USER =
            "[ -L \"$1\" ] && exit 3; [ -d \"$1\" ] && [ \"$(stat -c %a \"$1\")\" = 700 ] || exit 11; "
                    + "[ -f \"$2\" ] && [ ! -L \"$2\" ] && [ \"$(stat -c %a \"$2\")\" = 600 ] || exit 11; "
                    + "[ \"$(stat -c %s \"$2\")\" -le \"$3\" ] || exit 12; head -c \"$3\" \"$2\"";

    /** Runs {@code argv} (one of {@link #asUser}) within {@link #IN_HOME}; past it, says whose file it could not {@code what}. */
    private Commands.Result inHome(List<String> argv, String what, Path file, long uid) throws SystemException {
        try {
            return commands.run(argv, IN_HOME);
        } catch (CommandFailed e) {
            if (e.kind() != CommandFailed.Kind.PAST_DEADLINE) {
                throw e;
            }
            throw new SystemException("cannot %s %s as uid %d: it took more than %d s (a key file is a few KiB: "
                            .formatted(what, file, uid, IN_HOME.toSeconds())
                    + "is it on storage that hangs, or something other than a file?)");
        }
    }

    @Override
    public Held readAsUser(long uid, long gid, Path dir, Path file) throws SystemException {
        Commands.Result r = inHome(
                asUser(uid, gid, READ_AS_USER, dir.toString(), file.toString(), Long.toString(MOST_KEYS)),
                "read",
                file,
                uid);
        return switch (r.exit()) {
            case 0 -> new Held(false, Optional.of(r.stdout().getBytes(StandardCharsets.UTF_8)));
            case 3 -> Held.LINKED;
            // Too large to be the keys slurmlet wrote: not read, and written again.
            case 11, 12 -> Held.NONE;
            default ->
                throw new SystemException("cannot read %s as uid %d: %s"
                        .formatted(
                                file,
                                uid,
                                r.stderr().isBlank()
                                        ? "exit " + r.exit()
                                        : r.stderr().strip()));
        };
    }

    @Override
    public Optional<Dir> directory(Path dir) throws SystemException {
        Commands.Result now = commands.run(List.of("stat", "-c", "%F|%a|%u|%g", dir.toString()), DEADLINE);
        if (!now.succeeded()) {
            if (now.stderr().contains("No such file")) {
                return Optional.empty();
            }
            throw new SystemException(
                    "cannot look at %s: %s".formatted(dir, now.stderr().strip()));
        }
        String[] f = now.stdout().strip().split("\\|");
        if (f.length != 4) {
            throw new SystemException("cannot look at %s: stat said %s"
                    .formatted(dir, now.stdout().strip()));
        }
        return Optional.of(new Dir(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3])));
    }

    @Override
    public boolean writeAsUser(long uid, long gid, Path dir, Path file, byte[] content) throws SystemException {
        Commands.Result r = inHome(
                asUser(
                        uid,
                        gid,
                        AS_USER,
                        dir.toString(),
                        file.toString(),
                        new String(content, StandardCharsets.UTF_8),
                        Integer.toString(content.length)),
                "write",
                file,
                uid);
        if (r.exit() == 10) {
            return false;
        }
        if (r.exit() != 0) {
            throw new SystemException("cannot write %s as uid %d: %s"
                    .formatted(
                            file,
                            uid,
                            r.stderr().isBlank()
                                    ? "exit " + r.exit()
                                    : r.stderr().strip()));
        }
        return true;
    }

    @Override
    public List<String> managed(String commentPrefix) throws SystemException {
        List<String> logins = new ArrayList<>();
        for (String line : commands.runChecked(List.of("getent", "passwd"), DEADLINE)
                .stdout()
                .split("\n")) {
            String[] f = line.split(":", -1);
            if (f.length >= 7 && f[4].startsWith(commentPrefix)) {
                logins.add(f[0]);
            }
        }
        return logins;
    }

    @Override
    public boolean ensurePrivateDirectory(Path dir, long uid, long gid) throws SystemException {
        Commands.Result now = commands.run(List.of("stat", "-c", "%F %a %u %g", dir.toString()), DEADLINE);
        if (now.succeeded() && now.stdout().strip().equals("directory 700 %d %d".formatted(uid, gid))) {
            return false;
        }
        if (now.succeeded() && !now.stdout().startsWith("directory ")) {
            throw new SystemException(
                    "%s is a %s, not a folder: slurmlet does not follow or replace it; remove it and the next pass makes the folder"
                            .formatted(dir, now.stdout().strip().replaceAll(" \\d+ \\d+ \\d+$", "")));
        }
        commands.runChecked(
                List.of(
                        "install",
                        "-d",
                        "-m",
                        "0700",
                        "-o",
                        Long.toString(uid),
                        "-g",
                        Long.toString(gid),
                        dir.toString()),
                DEADLINE);
        return true;
    }
}
