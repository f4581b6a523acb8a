package io.slurmlet.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.slurmlet.model.users.Accounts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ctl users import FILE}: every account a site's file names, in one all-or-nothing change:
 * new e-mails are added, known ones brought to the keys and state given.
 */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        description = {
            "Adds or updates the accounts a JSON file names, all in one change.",
            "New e-mails are added; known ones get the keys and state given. With any problem, nothing changes,",
            "and every problem is named.",
            "The file: {\"accounts\": [{\"email\": \"alice@example.org\", \"ssh_keys\": [\"ssh-ed25519 AAAA…\"], "
                    + "\"enabled\": true}, …]}, or just the array."
        })
public class UsersImportCommand implements Callable<Integer> {

    static final String SHAPE = "give {\"accounts\": [{\"email\": …, \"ssh_keys\": […], \"enabled\": true}, …]} "
            + "or a JSON array of such objects";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The JSON file; - reads standard input.")
    String file;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        ArrayNode accounts = accounts(read(session));
        try (Leader leader = session.connect()) {
            Leader.Answer<Accounts> answer = leader.importAccounts(accounts);
            if (session.json()) {
                session.printJson(answer.body());
            } else {
                session.out()
                        .println("imported: %d account%s (revision %d)"
                                .formatted(
                                        accounts.size(),
                                        accounts.size() == 1 ? "" : "s",
                                        answer.value().revision()));
            }
            return 0;
        }
    }

    private String read(Session session) {
        try {
            byte[] bytes = "-".equals(file) ? session.in().readAllBytes() : Files.readAllBytes(Path.of(file));
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "cannot read %s: %s".formatted(name(), IoErrors.describe(e)));
        }
    }

    /** The file's accounts: its "accounts" array, or the file itself when it is an array. */
    private ArrayNode accounts(String text) {
        JsonNode tree;
        try {
            tree = Leader.JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "%s is not JSON at line %d, column %d (%s): %s"
                            .formatted(
                                    name(),
                                    e.getLocation().getLineNr(),
                                    e.getLocation().getColumnNr(),
                                    e.getOriginalMessage(),
                                    SHAPE));
        }
        if (tree != null && tree.isObject() && tree.get("accounts") instanceof ArrayNode array) {
            return array;
        }
        if (tree instanceof ArrayNode array) {
            return array;
        }
        throw new ParameterException(spec.commandLine(), "%s has no accounts: %s".formatted(name(), SHAPE));
    }

    private String name() {
        return "-".equals(file) ? "standard input" : file;
    }
}
