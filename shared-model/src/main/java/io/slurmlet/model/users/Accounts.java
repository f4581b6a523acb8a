package io.slurmlet.model.users;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.text.Text;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every account, the revision of the list, and the next UID to give: UIDs only grow, so a removed
 * account's UID (and whatever files still carry it) never passes to someone else.
 *
 * @param revision rises with every change
 * @param nextUid  the UID the next new account gets
 * @param accounts the accounts, in the order they were made
 */
public record Accounts(
        @JsonProperty("revision") long revision,
        @JsonProperty("next_uid") long nextUid,
        @JsonProperty("accounts") List<Account> accounts) {

    /** The first UID slurmlet gives: far above any distribution's own users and most sites' directories. */
    public static final long FIRST_UID = 200_000;

    public static final int LOGIN_MAX = 32;
    public static final Accounts EMPTY = new Accounts(0, FIRST_UID, List.of());

    /**
     * An e-mail address of printable ASCII, without what passwd's comment field, a shell or a mail
     * header would read as something else ({@code : , ; " \ < > ( ) [ ]}).
     */
    private static final Pattern EMAIL =
            Pattern.compile("[!#-'*+\\-./0-9=?A-Z^-~]{1,64}@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+");
    /** RFC 5321's limit on a whole address. */
    public static final int EMAIL_MAX = 254;
    /** An SSH public key line: a 16384-bit RSA key is under 3,000 characters. */
    public static final int KEY_MAX = 16_384;

    public static final int KEYS_MAX = 64;
    /** Logins a site's machines already use, or that would confuse: never given. */
    private static final Set<String> RESERVED = Set.of(
            "root",
            "daemon",
            "bin",
            "sys",
            "sync",
            "games",
            "man",
            "lp",
            "mail",
            "news",
            "uucp",
            "proxy",
            "www-data",
            "backup",
            "list",
            "irc",
            "nobody",
            "slurm",
            "munge",
            "sshd",
            "messagebus",
            "systemd-network",
            "systemd-resolve",
            "systemd-timesync",
            "_apt",
            "admin",
            "ubuntu",
            "debian",
            "centos",
            "rocky");

    public Accounts {
        accounts = accounts == null ? List.of() : List.copyOf(accounts);
    }

    public Optional<Account> find(String loginOrEmail) {
        String key = loginOrEmail.strip().toLowerCase(Locale.ROOT);
        return accounts.stream()
                .filter(a -> a.login().equals(key)
                        || a.email().toLowerCase(Locale.ROOT).equals(key))
                .findFirst();
    }

    /**
     * The login an e-mail makes: its local part, lowercase, with only letters, digits, {@code _}
     * and {@code -}, starting with a letter, at most 32 characters; one already given (or kept for
     * the system) gets a number after it. Empty: the e-mail makes no valid login.
     */
    public Optional<String> loginFor(String email, Set<String> taken) {
        String local = email.strip().split("@", 2)[0].toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_-]", "");
        local = local.replaceFirst("^[^a-z]+", "");
        if (local.isEmpty()) {
            return Optional.empty();
        }
        String base = local.length() > LOGIN_MAX ? local.substring(0, LOGIN_MAX) : local;
        Set<String> used = new HashSet<>(taken);
        accounts.forEach(a -> used.add(a.login()));
        used.addAll(RESERVED);
        if (!used.contains(base)) {
            return Optional.of(base);
        }
        for (int n = 2; ; n++) {
            String suffix = Integer.toString(n);
            String candidate = (base.length() + suffix.length() > LOGIN_MAX
                            ? base.substring(0, LOGIN_MAX - suffix.length())
                            : base)
                    + suffix;
            if (!used.contains(candidate)) {
                return Optional.of(candidate);
            }
        }
    }

    /** What is wrong with an e-mail as a new account's: each problem names the key, the value and the fix. */
    public List<Problem> emailProblems(String email) {
        List<Problem> problems = new ArrayList<>();
        if (email == null
                || email.strip().length() > EMAIL_MAX
                || !EMAIL.matcher(email.strip()).matches()
                || Text.unsafe(email).isPresent()) {
            problems.add(new Problem(
                    "email",
                    String.valueOf(email),
                    ("email %s is not an e-mail address of letters, digits and . _ - + "
                                    + "(at most %d characters): give one as name@example.org")
                            .formatted(Text.quote(String.valueOf(email)), EMAIL_MAX)));
        } else if (find(email).isPresent()) {
            problems.add(new Problem(
                    "email",
                    email,
                    "email %s already has the account %s: add keys to it, or enable it if it is disabled"
                            .formatted(email, find(email).get().login())));
        } else if (loginFor(email, Set.of()).isEmpty()) {
            problems.add(new Problem(
                    "email",
                    email,
                    ("email %s makes no login: its part before @ needs a letter (a-z), and only letters, "
                                    + "digits, _ and - are kept; use an address whose local part has one")
                            .formatted(email)));
        }
        return problems;
    }

    /**
     * What is wrong with SSH public keys: each must be {@code TYPE BASE64 [COMMENT]} of a known type whose
     * base64 holds that same type, and none may be given twice or belong to another account.
     */
    public List<Problem> keyProblems(List<String> keys, String owner) {
        List<Problem> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        if (keys.size() > KEYS_MAX) {
            problems.add(new Problem(
                    "ssh_keys",
                    Integer.toString(keys.size()),
                    "ssh_keys lists %d keys: at most %d for one person".formatted(keys.size(), KEYS_MAX)));
            return problems;
        }
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i).strip();
            String name = "ssh_keys[" + i + "]";
            String shown = key.length() > 60 ? key.substring(0, 60) + "…" : key;
            // As sent, not stripped: a line break at either end is as much another line as one inside.
            Optional<String> unsafe = Text.unsafe(keys.get(i));
            if (unsafe.isPresent() || key.length() > KEY_MAX) {
                // One key is one line of authorized_keys: a line break in its comment would add another
                // person's key, or options, to this person's file.
                problems.add(new Problem(
                        name,
                        shown,
                        "%s %s %s: give one key, one line as in id_ed25519.pub, of at most %d characters"
                                .formatted(name, Text.quote(shown), unsafe.orElse("is too long"), KEY_MAX)));
                continue;
            }
            String blob;
            try {
                blob = SshPublicKey.parse(key).identity();
            } catch (SshPublicKey.NotAKey e) {
                problems.add(new Problem(
                        name,
                        shown,
                        ("%s is not an SSH public key sshd would take (%s): give a line as in "
                                        + "id_ed25519.pub, 'ssh-ed25519 AAAA… comment' (types: ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/384/521, sk-…)")
                                .formatted(name, e.getMessage())));
                continue;
            }
            if (!seen.add(blob)) {
                problems.add(new Problem(name, shown, name + " is given twice: give each key once"));
                continue;
            }
            for (Account a : accounts) {
                if (!a.login().equals(owner)
                        && a.sshKeys().stream().map(Accounts::storedIdentity).anyMatch(blob::equals)) {
                    problems.add(new Problem(
                            name,
                            shown,
                            "%s is already the key of the account %s: a key belongs to one person"
                                    .formatted(name, a.login())));
                }
            }
        }
        return problems;
    }

    /** A stored key's type and base64: stored keys were read whole when they were taken, so its first two words. */
    static String storedIdentity(String line) {
        String[] parts = line.strip().split("\\s+");
        return parts.length < 2 ? line : parts[0] + " " + parts[1];
    }
}
