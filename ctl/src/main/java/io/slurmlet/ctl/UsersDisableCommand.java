package io.slurmlet.ctl;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ctl users disable LOGIN…}: locks accounts on every machine, their files kept. */
@Command(
        name = "disable",
        mixinStandardHelpOptions = true,
        description = {
            "Locks accounts on every machine; their files and keys are kept.",
            "No SSH login, no job, until 'ctl users enable'. Each account is its own change."
        })
public class UsersDisableCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "LOGIN", description = "An account's login, or its e-mail.")
    List<String> logins;

    @Override
    public Integer call() {
        return EachAccount.apply(
                Session.of(spec),
                logins,
                Leader::disableAccount,
                a -> EachAccount.Said.done(
                        a.removed()
                                ? "%s was removed: it is locked already".formatted(a.login())
                                : "disabled %s (uid %d): locked on every machine, files kept"
                                        .formatted(a.login(), a.uid())));
    }
}
