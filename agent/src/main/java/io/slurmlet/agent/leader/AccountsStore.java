package io.slurmlet.agent.leader;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slurmlet.agent.store.Document;
import io.slurmlet.agent.store.FileStore;
import io.slurmlet.agent.store.Store;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The cluster's accounts ({@code accounts.json}, root-only, written atomically before any change is
 * acknowledged), with their revision and the next UID. A change with a problem stores nothing.
 */
public final class AccountsStore {

    public static final String FILE_NAME = "accounts.json";

    /** What became of a change. */
    public sealed interface Result {
        record Stored(Accounts accounts, Optional<Account> account) implements Result {}

        record Refused(List<Problem> problems) implements Result {}

        record NotFound(String login) implements Result {}
    }

    /** Opened on the embedded store, the files of {@code stateDir}. */
    public static AccountsStore open(Path stateDir) throws IOException {
        return open(FileStore.open(stateDir));
    }

    /** One account of an import. */
    public record Imported(String email, List<String> sshKeys, boolean enabled) {}

    private final Document<Accounts> file;
    /** Guarded by this: set under the lock its write to the store is made with, so a watcher reading it sees the change. */
    private Accounts current;

    private AccountsStore(Document<Accounts> file, Accounts current) {
        this.file = file;
        this.current = current;
    }

    public static AccountsStore open(Store store) throws IOException {
        Document<Accounts> file = Document.in(store, FILE_NAME, new TypeReference<>() {});
        return new AccountsStore(
                file,
                file.read(
                        () -> Accounts.EMPTY,
                        "the accounts",
                        "restore it from a backup; slurmlet never "
                                + "starts over with no accounts, which would give their UIDs to others"));
    }

    public synchronized Accounts current() {
        return current;
    }

    public Result add(String email, List<String> keys) throws IOException {
        return change(all -> {
            List<Problem> problems = new ArrayList<>(all.emailProblems(email));
            problems.addAll(all.keyProblems(keys, ""));
            if (!problems.isEmpty()) {
                return new Result.Refused(problems);
            }
            return added(all, email.strip(), keys, true, new HashSet<>());
        });
    }

    public Result setEnabled(String login, boolean enabled) throws IOException {
        return update(login, a -> a.removed() ? a : a.withEnabled(enabled));
    }

    public Result remove(String login) throws IOException {
        return update(login, Account::asRemoved);
    }

    public Result setKeys(String login, List<String> keys) throws IOException {
        return change(all -> {
            Optional<Account> a = all.find(login);
            if (a.isEmpty()) {
                return new Result.NotFound(login);
            }
            List<Problem> problems = all.keyProblems(keys, a.get().login());
            return problems.isEmpty()
                    ? replaced(
                            all,
                            a.get().withKeys(keys.stream().map(String::strip).toList()))
                    : new Result.Refused(problems);
        });
    }

    /** Adds the new e-mails and brings the known ones to the keys and state given, all or nothing. */
    public Result importAll(List<Imported> entries) throws IOException {
        return importAll(entries, false);
    }

    /**
     * As {@link #importAll(List)}, for a platform that owns the accounts: an account it no longer
     * lists is disabled (locked, files kept), never removed.
     */
    public Result sync(List<Imported> entries) throws IOException {
        return importAll(entries, true);
    }

    private Result importAll(List<Imported> entries, boolean disableOthers) throws IOException {
        return change(all -> {
            Accounts next = all;
            List<Problem> problems = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < entries.size(); i++) {
                Imported e = entries.get(i);
                String at = "[" + i + "] ";
                if (e.email() == null || !seen.add(e.email().strip().toLowerCase(Locale.ROOT))) {
                    problems.add(new Problem(
                            "accounts[" + i + "].email",
                            String.valueOf(e.email()),
                            at
                                    + "email %s is missing or given twice in the file: give each person once"
                                            .formatted(e.email())));
                    continue;
                }
                Optional<Account> known = next.find(e.email());
                List<String> sent = e.sshKeys() == null ? List.of() : e.sshKeys();
                List<String> keys = sent.stream().map(String::strip).toList();
                if (known.isPresent()) {
                    List<Problem> kp = next.keyProblems(sent, known.get().login());
                    String index = "accounts[" + i + "].";
                    kp.forEach(p -> problems.add(new Problem(index + p.key(), p.value(), at + p.message())));
                    if (kp.isEmpty() && !known.get().removed()) {
                        next = ((Result.Stored) replaced(
                                        next, known.get().withKeys(keys).withEnabled(e.enabled())))
                                .accounts();
                    }
                } else {
                    List<Problem> ep = new ArrayList<>(next.emailProblems(e.email()));
                    ep.addAll(next.keyProblems(sent, ""));
                    String index = "accounts[" + i + "].";
                    ep.forEach(p -> problems.add(new Problem(index + p.key(), p.value(), at + p.message())));
                    if (ep.isEmpty()) {
                        next = ((Result.Stored) added(next, e.email().strip(), keys, e.enabled(), new HashSet<>()))
                                .accounts();
                    }
                }
            }
            if (disableOthers && problems.isEmpty()) {
                for (Account a : next.accounts()) {
                    if (a.active() && !seen.contains(a.email().toLowerCase(Locale.ROOT))) {
                        next = ((Result.Stored) replaced(next, a.withEnabled(false))).accounts();
                    }
                }
            }
            return problems.isEmpty() ? new Result.Stored(next, Optional.empty()) : new Result.Refused(problems);
        });
    }

    private Result update(String login, UnaryOperator<Account> edit) throws IOException {
        return change(all ->
                all.find(login).<Result>map(a -> replaced(all, edit.apply(a))).orElse(new Result.NotFound(login)));
    }

    private static Result added(Accounts all, String email, List<String> keys, boolean enabled, Set<String> taken) {
        String login = all.loginFor(email, taken).orElseThrow();
        long uid = all.nextUid();
        List<Account> next = new ArrayList<>(all.accounts());
        Account made = new Account(
                email, login, uid, uid, keys.stream().map(String::strip).toList(), enabled, false);
        next.add(made);
        return new Result.Stored(new Accounts(all.revision(), uid + 1, next), Optional.of(made));
    }

    private static Result replaced(Accounts all, Account account) {
        List<Account> next = new ArrayList<>();
        for (Account a : all.accounts()) {
            next.add(a.login().equals(account.login()) ? account : a);
        }
        return new Result.Stored(new Accounts(all.revision(), all.nextUid(), next), Optional.of(account));
    }

    private Result change(Function<Accounts, Result> edit) throws IOException {
        Result result;
        synchronized (this) {
            Accounts now = current;
            result = edit.apply(now);
            if (result instanceof Result.Stored stored
                    && !stored.accounts().accounts().equals(now.accounts())) {
                Accounts written = new Accounts(
                        now.revision() + 1,
                        stored.accounts().nextUid(),
                        stored.accounts().accounts());
                file.write(written);
                current = written;
                result = new Result.Stored(written, stored.account());
            }
        }
        return result;
    }
}
