package io.slurmlet.agent.system;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The machine's users and groups, as the users step keeps them (getent, groupadd, useradd, usermod on Linux). */
public interface Users {

    /**
     * A user as the machine has it.
     *
     * @param expired its account has expired (slurmlet's lock: ssh refuses it, even with a key)
     */
    record Entry(String login, long uid, long gid, String home, String comment, boolean expired) {}

    Optional<Entry> user(String login) throws SystemException;

    /** The GID of group {@code name}; empty when there is none. */
    Optional<Long> group(String name) throws SystemException;

    void addGroup(String name, long gid) throws SystemException;

    /** Adds a user without making its home (the step makes it, owner-only, where the plan says). */
    void addUser(String login, long uid, long gid, String home, String comment) throws SystemException;

    /** Locks (expires) or unlocks the account; its files are left alone. */
    void setExpired(String login, boolean expired) throws SystemException;

    /** The logins whose comment says slurmlet made them. */
    List<String> managed(String commentPrefix) throws SystemException;

    /**
     * What {@code dir} is: its type as stat(1) names it ("directory", "symbolic link", "regular
     * file"), its mode in octal and its owner's ids, not following a link; empty when there is nothing there.
     */
    record Dir(String type, String mode, long uid, long gid) {
        public boolean privateTo(long uid, long gid) {
            return type.equals("directory") && mode.equals("700") && this.uid == uid && this.gid == gid;
        }
    }

    Optional<Dir> directory(Path dir) throws SystemException;

    /**
     * What {@code file} in {@code dir} (inside the user's home) holds, read as the user, never as
     * root: {@link Held#linked} where {@code dir} is a symbolic link (never read through), no
     * content where {@code dir} is not a 0700 folder or {@code file} not a 0600 file in it.
     */
    Held readAsUser(long uid, long gid, Path dir, Path file) throws SystemException;

    /** A user's file as {@link #readAsUser} found it. */
    record Held(boolean linked, Optional<byte[]> content) {
        public static final Held NONE = new Held(false, Optional.empty());
        public static final Held LINKED = new Held(true, Optional.empty());
    }

    /**
     * Makes {@code dir} a folder of mode 0700 owned by uid:gid if it is not one; says whether it
     * changed anything. Refuses a {@code dir} that is a symbolic link or not a folder: root never
     * follows a path a user could have pointed elsewhere.
     */
    boolean ensurePrivateDirectory(Path dir, long uid, long gid) throws SystemException;

    /**
     * Makes {@code dir} (inside the user's home) a 0700 folder and writes {@code file} in it with
     * exactly {@code content}, 0600, both as the user, never as root: what a user controls
     * (their home) can only lead the writes to where the user could write anyway. Says whether
     * anything changed.
     */
    boolean writeAsUser(long uid, long gid, Path dir, Path file, byte[] content) throws SystemException;
}
