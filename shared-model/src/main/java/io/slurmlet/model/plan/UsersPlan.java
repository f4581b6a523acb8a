package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.slurmlet.model.users.Account;
import java.util.List;

/** What one machine does with the cluster's accounts (settings' {@code users}). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = UsersPlan.Leave.class, name = "leave"),
    @JsonSubTypes.Type(value = UsersPlan.Keep.class, name = "keep")
})
public sealed interface UsersPlan {

    UsersPlan LEAVE = new Leave();

    /** Where homes are: {@code /home}, or {@code PATH/home} on shared storage. */
    String homeRoot();

    /** The machine's users are the site's: slurmlet adds, locks and removes none. */
    record Leave() implements UsersPlan {
        @JsonIgnore
        @Override
        public String homeRoot() {
            return "/home";
        }
    }

    /**
     * Keep {@code accounts} as Linux users here (settings' {@code users = "slurmlet"}), each with its
     * UID, group and SSH keys, a disabled or removed one locked.
     */
    record Keep(
            @JsonProperty("accounts") List<Account> accounts,
            @JsonProperty("home_root") String homeRoot) implements UsersPlan {
        public Keep {
            accounts = accounts == null ? List.of() : List.copyOf(accounts);
            homeRoot = homeRoot == null || homeRoot.isEmpty() ? "/home" : homeRoot;
        }
    }

    /** Accounts kept with homes under {@code sharedPath}'s {@code home}, or {@code /home} without shared storage. */
    static Keep keep(List<Account> accounts, String sharedPath) {
        return new Keep(
                accounts,
                sharedPath == null || sharedPath.isEmpty() ? "/home" : sharedPath.replaceAll("/+$", "") + "/home");
    }
}
