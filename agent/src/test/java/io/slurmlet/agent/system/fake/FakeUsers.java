package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.SystemException;
import io.slurmlet.agent.system.Users;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Users in memory, with a log of every change asked of it. */
public final class FakeUsers implements Users {

    public final Map<String, Entry> users = new HashMap<>();
    public final Map<String, Long> groups = new HashMap<>();
    public final Map<Path, String> dirs = new HashMap<>();
    public final List<String> log = new ArrayList<>();

    @Override
    public Optional<Entry> user(String login) {
        return Optional.ofNullable(users.get(login));
    }

    @Override
    public Optional<Long> group(String name) {
        return Optional.ofNullable(groups.get(name));
    }

    @Override
    public void addGroup(String name, long gid) {
        log.add("groupadd " + name + " " + gid);
        groups.put(name, gid);
    }

    @Override
    public void addUser(String login, long uid, long gid, String home, String comment) throws SystemException {
        log.add("useradd " + login + " " + uid + " " + home);
        users.put(login, new Entry(login, uid, gid, home, comment, false));
    }

    @Override
    public void setExpired(String login, boolean expired) {
        log.add((expired ? "lock " : "unlock ") + login);
        Entry e = users.get(login);
        users.put(login, new Entry(e.login(), e.uid(), e.gid(), e.home(), e.comment(), expired));
    }

    @Override
    public List<String> managed(String commentPrefix) {
        return users.values().stream()
                .filter(e -> e.comment().startsWith(commentPrefix))
                .map(Entry::login)
                .sorted()
                .toList();
    }

    public final Map<Path, byte[]> userFiles = new HashMap<>();

    @Override
    public boolean writeAsUser(long uid, long gid, Path dir, Path file, byte[] content) throws SystemException {
        if (links.contains(dir)) {
            throw new SystemException("cannot write %s as uid %d: %s is a symbolic link".formatted(file, uid, dir));
        }
        if (hanging.contains(file)) {
            throw new SystemException("cannot write %s as uid %d: it took more than 5 s".formatted(file, uid));
        }
        boolean made = ensurePrivateDirectory(dir, uid, gid);
        if (java.util.Arrays.equals(userFiles.get(file), content)) {
            return made;
        }
        log.add("write as " + uid + " " + file);
        userFiles.put(file, content.clone());
        return true;
    }

    /** Folders that are symbolic links (a user's {@code ln -s / ~/.ssh}). */
    public final java.util.Set<Path> links = new java.util.HashSet<>();

    @Override
    public Optional<Dir> directory(Path dir) {
        if (links.contains(dir)) {
            return Optional.of(new Dir("symbolic link", "777", 0, 0));
        }
        String now = dirs.get(dir);
        if (now == null) {
            return Optional.empty();
        }
        String[] f = now.split("[: ]");
        return Optional.of(new Dir("directory", f[2].substring(1), Long.parseLong(f[0]), Long.parseLong(f[1])));
    }

    /** Files whose reads and writes fail as a user's slow file does (past the deadline). */
    public final java.util.Set<Path> hanging = new java.util.HashSet<>();

    @Override
    public Held readAsUser(long uid, long gid, Path dir, Path file) throws SystemException {
        if (hanging.contains(file)) {
            throw new SystemException("cannot read %s as uid %d: it took more than 5 s".formatted(file, uid));
        }
        if (links.contains(dir)) {
            return Held.LINKED;
        }
        byte[] content = userFiles.get(file);
        return content == null || !(uid + ":" + gid + " 0700").equals(dirs.get(dir))
                ? Held.NONE
                : new Held(false, Optional.of(content.clone()));
    }

    @Override
    public boolean ensurePrivateDirectory(Path dir, long uid, long gid) throws SystemException {
        if (links.contains(dir)) {
            throw new SystemException(
                    dir + " is a symbolic link, not a folder: slurmlet does not follow or replace it");
        }
        String want = uid + ":" + gid + " 0700";
        if (want.equals(dirs.get(dir))) {
            return false;
        }
        log.add("install -d " + dir + " " + want);
        dirs.put(dir, want);
        return true;
    }
}
