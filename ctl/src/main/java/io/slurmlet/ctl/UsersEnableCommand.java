package io.slurmlet.ctl;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl users enable LOGIN…}: lets disabled accounts in again. */
@Command(
        name = "enable",
        mixinStandardHelpOptions = true,
        description = {
            "Lets disabled accounts in again, with their SSH keys.",
            "A removed account stays locked. Each account is its own change."
        })
public class UsersEnableCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "LOGIN", description = "An account's login, or its e-mail.")
    List<String> logins;

    @Override
    public Integer call() {
        return EachAccount.apply(
                Session.of(spec),
                logins,
                Leader::enableAccount,
                a -> a.removed()
                        ? EachAccount.Said.failed(
                                "%s was removed, and a removed account is never enabled again: it stays locked"
                                        .formatted(a.login()))
                        : EachAccount.Said.done("enabled %s (uid %d)".formatted(a.login(), a.uid())));
    }
}
