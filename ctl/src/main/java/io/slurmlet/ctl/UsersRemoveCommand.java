package io.slurmlet.ctl;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl users remove LOGIN…}: removes accounts for good; their files are kept. */
@Command(
        name = "remove",
        mixinStandardHelpOptions = true,
        description = {
            "Removes accounts for good; their files are kept.",
            "Locked on every machine, their SSH keys dropped; their logins and UIDs are never given again.",
            "It asks nothing: each account is its own change."
        })
public class UsersRemoveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "LOGIN", description = "An account's login, or its e-mail.")
    List<String> logins;

    @Override
    public Integer call() {
        return EachAccount.apply(
                Session.of(spec),
                logins,
                Leader::removeAccount,
                a -> EachAccount.Said.done(
                        "removed %s: locked on every machine, files kept; the login and uid %d are never given again"
                                .formatted(a.login(), a.uid())));
    }
}
