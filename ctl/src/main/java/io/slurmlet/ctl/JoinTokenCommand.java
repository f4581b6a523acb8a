package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ctl slurm join-token}: makes a join token and prints the line that joins a new machine
 * with it; {@code list} and {@code revoke} the tokens made.
 */
@Command(
        name = "join-token",
        mixinStandardHelpOptions = true,
        description = {
            "Makes a join token and prints the line that joins a new machine's agent to this cluster.",
            "A token works until it expires (24 hours unless --ttl says otherwise) or is revoked;",
            "the line holds it: show it only to whoever installs machines. It is shown this once."
        },
        subcommands = {JoinTokenCommand.Create.class, JoinTokenCommand.ListTokens.class, JoinTokenCommand.Revoke.class},
        footerHeading = "%nExamples:%n",
        footer = {
            "  ctl slurm join-token",
            "  ctl slurm join-token create --ttl 2h --description 'rack 12'",
            "  ctl slurm join-token list",
            "  ctl slurm join-token revoke 4k2j9x0a"
        })
public class JoinTokenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    NewTokenOptions options;

    @Override
    public Integer call() {
        return create(spec, options);
    }

    /** What a new token is: how long it works, and what it is for. */
    static class NewTokenOptions {
        @Option(
                names = "--ttl",
                paramLabel = "TIME",
                description = "How long the token works: a number and s, m, h or d, at most 30d (default 24h).")
        String ttl;

        @Option(names = "--description", paramLabel = "TEXT", description = "What the token is for, shown by list.")
        String description;
    }

    static int create(CommandSpec spec, NewTokenOptions options) {
        Session session = Session.of(spec);
        return session.answer(leader -> leader.createJoinToken(options.ttl, options.description), (out, made) -> {
            out.println(made.command());
            session.err()
                    .println("join token %s: works until %s (ctl slurm join-token revoke %s ends it now)"
                            .formatted(made.id(), made.expires(), made.id()));
            session.err().flush();
        });
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = {"Makes a join token and prints the line that joins a new machine with it."})
    static class Create implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        NewTokenOptions options;

        @Override
        public Integer call() {
            return create(spec, options);
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = {"Shows the join tokens: id, when each expires, what it is for. Never their secrets."})
    static class ListTokens implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return Session.of(spec).answer(Leader::joinTokens, (out, value) -> {
                JsonNode tokens = value.path("tokens");
                if (tokens.isEmpty()) {
                    out.println("no join tokens: make one with 'ctl slurm join-token'");
                    return;
                }
                Table table = new Table("ID", "EXPIRES", "STATE", "DESCRIPTION");
                for (JsonNode t : tokens) {
                    table.row(
                            t.path("id").asText(),
                            t.path("expires").asText(),
                            t.path("expired").asBoolean() ? "expired" : "live",
                            t.path("description").asText());
                }
                table.print(out);
            });
        }
    }

    @Command(
            name = "revoke",
            mixinStandardHelpOptions = true,
            description = {
                "Revokes a join token now: no machine joins with it from then on.",
                "Machines that joined with it keep their own credentials."
            })
    static class Revoke implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(
                paramLabel = "ID",
                description = "The token's id, as list shows it (the part of the token before the dot).")
        String id;

        @Override
        public Integer call() {
            return Session.of(spec)
                    .answer(
                            leader -> leader.revokeJoinToken(id),
                            (out, value) ->
                                    out.println("revoked join token " + id + ": no machine joins with it any more"));
        }
    }
}
