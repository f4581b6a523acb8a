package io.slurmlet.agent.leader;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.model.api.SettingsJson;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * For sites whose platform owns the accounts: the leader runs the site's command every interval;
 * it prints the accounts as JSON ({@code {"accounts": [{"email", "ssh_keys", "enabled"}]}} or just
 * the array), and the store is brought to it, all or nothing: new ones added, known ones given
 * their keys and state, ones no longer printed disabled. A failed run or bad output changes
 * nothing and is logged with the reason.
 */
public final class AccountsSync {

    private static final Logger LOG = Logger.getLogger(AccountsSync.class);
    static final Duration DEADLINE = Duration.ofMinutes(2);

    private final Commands commands;
    private final List<String> argv;
    private final AccountsStore store;
    private volatile String last = "";

    public AccountsSync(Commands commands, List<String> argv, AccountsStore store) {
        this.commands = commands;
        this.argv = List.copyOf(argv);
        this.store = store;
    }

    /** One run; returns what it did, as the log says it. */
    public String run() {
        String said;
        try {
            Commands.Result r = commands.runChecked(argv, DEADLINE);
            JsonNode root = SettingsJson.STRICT.readTree(r.stdout());
            JsonNode list = root.isArray() ? root : root.path("accounts");
            if (!list.isArray()) {
                said = "the accounts sync %s printed no accounts array: print {\"accounts\": [...]} or [...]"
                        .formatted(String.join(" ", argv));
            } else {
                List<AccountsStore.Imported> entries = new ArrayList<>();
                for (JsonNode a : list) {
                    List<String> keys = new ArrayList<>();
                    a.path("ssh_keys").forEach(k -> keys.add(k.asText()));
                    entries.add(new AccountsStore.Imported(
                            a.path("email").asText(null),
                            keys,
                            a.path("enabled").asBoolean(true)));
                }
                AccountsStore.Result result = store.sync(entries);
                said = result instanceof AccountsStore.Result.Refused refused
                        ? "the accounts sync was refused, nothing changed: "
                                + String.join(
                                        "; ",
                                        refused.problems().stream()
                                                .map(p -> p.message())
                                                .toList())
                        : "accounts synced: %d from %s".formatted(entries.size(), String.join(" ", argv));
            }
        } catch (CommandFailed e) {
            said = "the accounts sync failed, nothing changed: " + e.getMessage();
        } catch (IOException e) {
            said = "the accounts sync printed no JSON (%s), nothing changed"
                    .formatted(e.getMessage().split("\n")[0]);
        }
        if (!said.equals(last)) {
            if (said.startsWith("accounts synced")) {
                LOG.info(said);
            } else {
                LOG.warn(said);
            }
            last = said;
        }
        return said;
    }
}
