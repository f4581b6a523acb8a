package io.slurmlet.model.users;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One person's account on the cluster (settings' {@code users = "slurmlet"}): a Linux user of the
 * same login, UID and GID on every machine, let in with its SSH keys.
 *
 * @param email   the account's e-mail, as given; its local part made the login
 * @param login   the Linux login; given once, never changed
 * @param uid     its UID, from 200000 up, never reused, even after removal
 * @param gid     its own group's GID (the same number as the UID)
 * @param sshKeys its public keys, as authorized_keys lines
 * @param enabled a disabled account is locked on every machine; its files are kept
 * @param removed a removed account stays locked, its keys dropped, its files kept; its login and
 *                UID are never given again
 */
public record Account(
        @JsonProperty("email") String email,
        @JsonProperty("login") String login,
        @JsonProperty("uid") long uid,
        @JsonProperty("gid") long gid,
        @JsonProperty("ssh_keys") List<String> sshKeys,
        @JsonProperty("enabled") boolean enabled,
        @JsonProperty("removed") boolean removed) {

    public Account {
        sshKeys = sshKeys == null ? List.of() : List.copyOf(sshKeys);
    }

    public Account withEnabled(boolean on) {
        return new Account(email, login, uid, gid, sshKeys, on, removed);
    }

    public Account withKeys(List<String> keys) {
        return new Account(email, login, uid, gid, keys, enabled, removed);
    }

    /** Removed: locked, without keys, kept in the list so that its login and UID are never given again. */
    public Account asRemoved() {
        return new Account(email, login, uid, gid, List.of(), false, true);
    }

    /** Whether its machines let it in. */
    public boolean active() {
        return enabled && !removed;
    }
}
