package io.slurmlet.ctl;

import io.slurmlet.model.users.Account;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl users keys LOGIN}: replaces the account's SSH keys with those given. */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = {
            "Replaces an account's SSH keys with those given: a key not given is dropped.",
            "To lock a person out, use 'ctl users disable' instead."
        })
public class UsersKeysCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "LOGIN", description = "The account's login, or its e-mail.")
    String login;

    @Mixin
    SshKeyOptions keys;

    @Override
    public Integer call() {
        if (keys.none()) {
            throw new ParameterException(
                    spec.commandLine(),
                    ("give the keys with --ssh-key KEY or --ssh-key-file FILE "
                                    + "(they replace all of %s's); to lock %s out, use 'ctl users disable %s'")
                            .formatted(login, login, login));
        }
        Session session = Session.of(spec);
        List<String> given = keys.read(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<Account> answer = leader.setAccountKeys(login, given);
            Account a = answer.value();
            PrintWriter notes = session.json() ? session.err() : session.out();
            if (session.json()) {
                session.printJson(answer.body());
            } else {
                int n = a.sshKeys().size();
                notes.println("%s has %d SSH key%s now".formatted(a.login(), n, n == 1 ? "" : "s"));
            }
            if (a.removed()) {
                notes.println("%s was removed: it stays locked, and no key lets it in".formatted(a.login()));
            } else if (!a.enabled()) {
                notes.println("%s is disabled: the keys let it in once 'ctl users enable %s'"
                        .formatted(a.login(), a.login()));
            }
            notes.flush();
            return 0;
        }
    }
}
