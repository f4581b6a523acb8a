package io.slurmlet.ctl;

import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.settings.SettingKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** {@code ctl slurm show}: the settings, each key as {@code ctl slurm set} spells it. */
@Command(name = "show", mixinStandardHelpOptions = true,
        description = "Shows the settings and their revision: each key as 'ctl slurm set' takes it, and its value.")
public class ShowCommand implements Callable<Integer> {

    @Mixin
    CommonOptions options;

    @Override
    public Integer call() {
        try (Leader leader = options.connect()) {
            Leader.Answer<SettingsDocument> doc = leader.settings();
            if (options.json()) {
                options.printJson(doc.body());
                return 0;
            }
            PrintWriter out = options.out();
            out.println("revision " + doc.value().revision());
            Table table = new Table("KEY", "VALUE");
            for (SettingKey key : SettingKey.values()) {
                table.row(key.key(), Table.shown(key.format(doc.value().settings())));
            }
            table.print(out);
            return 0;
        }
    }
}
