package io.slurmlet.ctl;

import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ctl users list}: a row per account; removed ones only with {@code --all}. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "Shows the accounts: login, UID, e-mail, how many SSH keys, state.",
            "Removed ones only with --all; with -o json, every account as the leader sent them."
        })
public class UsersListCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = "--all",
            description =
                    "Shows the removed accounts too (locked for good; their logins and UIDs are never given again).")
    boolean all;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<Accounts> answer = leader.accounts();
            if (session.json()) {
                session.printJson(answer.body());
            } else {
                print(session.out(), answer.value().accounts(), all);
            }
            return 0;
        }
    }

    static void print(PrintWriter out, List<Account> accounts, boolean all) {
        List<Account> shown = accounts.stream().filter(a -> all || !a.removed()).toList();
        if (shown.isEmpty()) {
            long removed = accounts.size();
            out.println(
                    removed == 0
                            ? "no accounts: add one with 'ctl users add EMAIL --ssh-key KEY'"
                            : "no accounts but %d removed ('ctl users list --all' shows them)".formatted(removed));
            out.flush();
            return;
        }
        Table table = new Table("LOGIN", "UID", "EMAIL", "KEYS", "STATE");
        for (Account a : shown) {
            table.row(
                    a.login(),
                    Long.toString(a.uid()),
                    a.email(),
                    Integer.toString(a.sshKeys().size()),
                    state(a));
        }
        table.print(out);
    }

    static String state(Account a) {
        return a.removed() ? "removed" : a.enabled() ? "enabled" : "disabled";
    }
}
