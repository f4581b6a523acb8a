package io.slurmlet.ctl;

import io.slurmlet.model.users.Account;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl users add EMAIL}: a new account, its login made from the e-mail, its UID the next one. */
@Command(
        name = "add",
        mixinStandardHelpOptions = true,
        description = {
            "Adds an account for a person, with SSH keys now or later ('ctl users keys').",
            "Its login is the e-mail's part before @ (a number after it when taken); its UID the next one."
        })
public class UsersAddCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "EMAIL", description = "The person's e-mail, as name@example.org.")
    String email;

    @Mixin
    SshKeyOptions keys;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        List<String> given = keys.read(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<Account> answer = leader.addAccount(email.strip(), given);
            Account a = answer.value();
            PrintWriter notes = session.json() ? session.err() : session.out();
            if (session.json()) {
                session.printJson(answer.body());
            } else {
                notes.println("added %s (uid %d) for %s".formatted(a.login(), a.uid(), a.email()));
            }
            if (a.sshKeys().isEmpty()) {
                notes.println("%s has no SSH key yet: ctl users keys %s --ssh-key …".formatted(a.login(), a.login()));
            }
            notes.flush();
            return 0;
        }
    }
}
