package io.slurmlet.ctl;

import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.settings.SettingKey;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code ctl slurm show}: the settings, each key as {@code ctl slurm set} spells it. */
@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = {"Shows the settings and their revision.", "Each key as 'ctl slurm set' takes it, and its value."
        })
public class ShowCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<SettingsDocument> doc = leader.settings();
            if (session.json()) {
                session.printJson(doc.body());
                return 0;
            }
            PrintWriter out = session.out();
            out.println("revision " + doc.value().revision());
            Table table = new Table("KEY", "VALUE");
            SettingKey.rows(doc.value().settings()).forEach((key, value) -> table.row(key, Table.shown(value)));
            table.print(out);
            return 0;
        }
    }
}
