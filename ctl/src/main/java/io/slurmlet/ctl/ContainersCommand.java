package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slurmlet.model.api.SettingsDocument;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.OptionalLong;
import java.util.concurrent.Callable;

/** {@code ctl slurm containers on|off}: the {@code containers} setting. */
@Command(name = "containers", mixinStandardHelpOptions = true,
        description = {"Lets Slurm jobs run in containers, or not.",
                "on: every Slurm machine's agent installs enroot and builds pyxis against its own Slurm, from the files the "
                        + "leader's table pins (slurmlet.leader.containers.table and .mirror), each checked against its sha256; "
                        + "Slurm loads pyxis (srun --container-image) once every machine has it.",
                "off: Slurm stops loading pyxis; nothing installed is removed."})
public class ContainersCommand implements Callable<Integer> {

    /** The two words this command takes. */
    public enum Switch { on, off }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "on|off", description = "on or off.")
    Switch state;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        ObjectNode patch = Leader.JSON.createObjectNode().put("containers", state == Switch.on);
        try (Leader leader = session.connect()) {
            Leader.Answer<SettingsDocument> doc = leader.patch(patch, OptionalLong.empty());
            if (session.json()) {
                session.printJson(doc.body());
            } else {
                session.out().println("containers %s (revision %d)".formatted(
                        doc.value().settings().containers() ? "on" : "off", doc.value().revision()));
            }
            return 0;
        }
    }
}
