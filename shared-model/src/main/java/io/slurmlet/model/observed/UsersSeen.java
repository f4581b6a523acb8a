package io.slurmlet.model.observed;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the users step saw of the machine's users: the accounts of its plan, and every user whose
 * comment says slurmlet made it. No key is in it, only a digest of each authorized_keys file (public
 * keys, but the leader has them already: the digest says whether the file holds them).
 *
 * @param kept    whether the plan had the accounts kept here (settings' users = "slurmlet"); false:
 *                the machine's users are the site's, and nothing else was looked at
 * @param users   the planned accounts' logins and slurmlet's own users, as the machine has them
 */
public record UsersSeen(
        @JsonProperty("kept") boolean kept,
        @JsonProperty("users") List<User> users) {

    /** Logins as useradd takes them: what an account's login and a user slurmlet made can be. */
    static final Pattern LOGIN = Pattern.compile("[a-z_][a-z0-9_.-]{0,31}");

    static final int MOST = 100_000;

    /** Whether {@code login} can be reported: a user of another form is none of slurmlet's accounts. */
    public static boolean isLogin(String login) {
        return login != null && LOGIN.matcher(login).matches();
    }

    public static final UsersSeen SITES = new UsersSeen(false, List.of());

    public UsersSeen {
        users = List.copyOf(users == null ? List.of() : users);
        if (users.size() > MOST) {
            throw new IllegalArgumentException("users: at most " + MOST + " users");
        }
    }

    /** The user of {@code login}, as seen; null where there is none. */
    public User user(String login) {
        return users.stream().filter(u -> u.login().equals(login)).findFirst().orElse(null);
    }

    /**
     * One login as the machine has it.
     *
     * @param login    the login
     * @param uid      its user's UID; -1: there is no such user
     * @param groupGid the GID of the group of the same name; -1: there is none
     * @param comment  its user's comment (slurmlet's own start with "slurmlet account")
     * @param expired  whether its account is locked (expired)
     * @param home     its home as the plan puts it: "" none, "private" a folder of mode 0700 owned by
     *                 the user and its group, "open" a folder otherwise, or what else it is
     *                 ("symbolic link", "regular file"), which slurmlet never follows nor replaces
     * @param keys     sha256 of ~/.ssh/authorized_keys where it is a 0600 file in a 0700 ~/.ssh; ""
     *                 where it is not (it is then written), {@link #LINKED} where ~/.ssh is a
     *                 symbolic link (never written through)
     */
    public record User(
            @JsonProperty("login") String login,
            @JsonProperty("uid") long uid,
            @JsonProperty("group_gid") long groupGid,
            @JsonProperty("comment") String comment,
            @JsonProperty("expired") boolean expired,
            @JsonProperty("home") String home,
            @JsonProperty("keys") String keys) {

        public static final String PRIVATE = "private";
        public static final String OPEN = "open";
        public static final String LINKED = "linked";

        public User {
            comment = comment == null ? "" : comment;
            home = home == null ? "" : home;
            keys = keys == null ? "" : keys;
            if (login == null || !LOGIN.matcher(login).matches()) {
                throw new IllegalArgumentException("users: a login is a Linux login");
            }
            if (uid < -1 || uid > 4_294_967_294L || groupGid < -1 || groupGid > 4_294_967_294L) {
                throw new IllegalArgumentException("users: uid and group_gid are ids, or -1 for none");
            }
            if (!StorageSeen.printable(comment, 256) || !StorageSeen.printable(home, 32)) {
                throw new IllegalArgumentException("users: comment and home are one line of printable text");
            }
            if (!keys.equals(LINKED)) {
                keys = StorageSeen.digest("keys", keys);
            }
        }

        public boolean exists() {
            return uid >= 0;
        }
    }
}
