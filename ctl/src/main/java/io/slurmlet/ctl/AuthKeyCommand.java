package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.model.text.Text;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ctl slurm auth-key}: Slurm's own keys under auth=slurm, which generation each daemon loaded, and a new key. */
@Command(
        name = "auth-key",
        mixinStandardHelpOptions = true,
        description = {
            "Slurm's own keys under auth=slurm (/etc/slurm/slurm.jwks on every Slurm machine): which",
            "generation of the key list each slurmctld and slurmd loaded, and a new key. No key is ever shown."
        },
        subcommands = {AuthKeyCommand.Status.class, AuthKeyCommand.Rotate.class},
        footerHeading = "%nExamples:%n",
        footer = {"  ctl slurm auth-key rotate", "  ctl slurm auth-key status"})
public class AuthKeyCommand implements Runnable {

    private static final Pattern LOADED = Pattern.compile("loaded generation ([0-9]{1,18})");

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name what to do: status or rotate");
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = {
                "Shows the key list's generation and kids, where a rotation is (STEADY, ADDED: a new key",
                "beside the one that signs, SWITCHED: the new key signs), what it waits for next, and for each",
                "slurmctld and slurmd which generation it loaded."
            })
    static class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return Session.of(spec).answer(Leader::authKey, AuthKeyCommand::print);
        }
    }

    @Command(
            name = "rotate",
            mixinStandardHelpOptions = true,
            description = {
                "Makes a new key and rolls it to every Slurm machine in three phases, each loaded by every",
                "slurmctld and slurmd (scontrol reconfigure, no restart) before the next: the new key is added",
                "beside the one that signs; then it signs, the old one still accepted; then, once a token's",
                "lifetime (AuthInfo's ttl, 60 s by default) and a margin have passed, the old one is dropped.",
                "Jobs keep running throughout, and it is not refused under them. A machine that is down holds",
                "the rotation at its phase until it is back; the old key keeps working meanwhile.",
                "Refused under auth=munge (ctl slurm munge-key rotate) and while a rotation is under way."
            })
    static class Rotate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return Session.of(spec).answer(Leader::rotateAuthKey, (out, value) -> {
                value.path("notes").forEach(note -> out.println(Text.oneLine(note.asText())));
                out.println();
                print(out, value);
            });
        }
    }

    /** The keys, where their rotation is, and a table of the daemons, as status prints them. */
    static void print(PrintWriter out, JsonNode value) {
        long generation = value.path("generation").asLong();
        long rotation = value.path("rotation").asLong();
        String auth = Text.oneLine(value.path("auth").asText());
        out.println("auth %s, generation %d, phase %s since %s"
                .formatted(
                        auth,
                        generation,
                        Text.oneLine(value.path("phase").asText()),
                        Text.oneLine(value.path("since").asText())));
        if (!auth.equals("slurm")) {
            out.println("Slurm authenticates with munge and does not use these keys (ctl slurm set auth=slurm)");
        }
        out.println(
                rotation == 0
                        ? "the cluster's first keys (never rotated)"
                        : "rotation %d, asked at %s by %s"
                                .formatted(
                                        rotation,
                                        Text.oneLine(value.path("requested").asText()),
                                        Text.oneLine(value.path("by").asText())));
        String signing = value.path("signing_kid").asText();
        List<String> kids = new ArrayList<>();
        value.path("kids")
                .forEach(k -> kids.add(Text.oneLine(k.asText()) + (k.asText().equals(signing) ? " (signs)" : "")));
        out.println("keys: " + String.join(", ", kids));
        out.println("next: " + Text.oneLine(value.path("next_step").asText()));
        JsonNode machines = value.path("machines");
        if (machines.isEmpty()) {
            out.println("no machine runs slurmctld or slurmd with Slurm's keys");
            return;
        }
        Table table = new Table("NODE", "DAEMON", "LOADED");
        int daemons = 0;
        int loaded = 0;
        for (JsonNode m : machines) {
            for (Iterator<Map.Entry<String, JsonNode>> it = m.path("daemons").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> d = it.next();
                String said = d.getValue().asText();
                Matcher g = LOADED.matcher(said);
                daemons++;
                loaded += g.matches() && Long.parseLong(g.group(1)) >= generation ? 1 : 0;
                table.row(m.path("node").asText(), d.getKey(), said);
            }
        }
        table.print(out);
        out.println("%d of %d daemons loaded generation %d".formatted(loaded, daemons, generation));
    }
}
