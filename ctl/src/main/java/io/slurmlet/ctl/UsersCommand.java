package io.slurmlet.ctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ctl users}: the cluster's accounts, as the leader keeps them. */
@Command(
        name = "users",
        mixinStandardHelpOptions = true,
        description = {
            "The cluster's accounts: each person one login, UID and GID on every machine.",
            "They get in with their SSH keys (with the setting users=slurmlet).",
            "A removed account's login and UID are never given again."
        },
        subcommands = {
            UsersListCommand.class,
            UsersAddCommand.class,
            UsersKeysCommand.class,
            UsersDisableCommand.class,
            UsersEnableCommand.class,
            UsersRemoveCommand.class,
            UsersImportCommand.class
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  ctl users add alice@example.org --ssh-key-file alice.pub",
            "  ctl users keys alice --ssh-key 'ssh-ed25519 AAAA… alice@laptop'",
            "  ctl users disable alice bob",
            "  ctl users import accounts.json"
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:refused or failed", "2:bad usage"})
public class UsersCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(), "name what to do: list, add, keys, disable, enable, remove or import");
    }
}
