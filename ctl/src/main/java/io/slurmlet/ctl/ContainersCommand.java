package io.slurmlet.ctl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slurmlet.model.api.ContainerFile;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.facts.ContainerFacts;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ctl slurm containers on|off|status}: the {@code containers} setting, and what each machine
 * has for it; {@code import} hands the files to the leader for machines that reach no mirror.
 */
@Command(
        name = "containers",
        mixinStandardHelpOptions = true,
        subcommands = ContainersImportCommand.class,
        description = {
            "Lets Slurm jobs run in containers, or not.",
            "on: every Slurm machine's agent installs enroot and builds pyxis against its own Slurm, from the files the "
                    + "leader's table pins (slurmlet.leader.containers.table and .mirror), each checked against its sha256; "
                    + "Slurm loads pyxis (srun --container-image) once every machine has it.",
            "off: Slurm stops loading pyxis; nothing installed is removed.",
            "import FILE...: hands the table's files to the leader, which serves them to every machine (no mirror needed).",
            "status: what each machine has (enroot, pyxis, the Slurm it was built for and its plugin's sha256, slurmlet's prolog), and what Slurm "
                    + "loading pyxis waits for."
        })
public class ContainersCommand implements Callable<Integer> {

    /** The two words this command takes. */
    public enum Switch {
        on,
        off,
        status
    }

    @Spec
    CommandSpec spec;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "on|off|status",
            description = "on, off, or status (or import FILE...).")
    Switch state;

    @Override
    public Integer call() {
        if (state == null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "name what to do: on, off, status or import FILE...");
        }
        Session session = Session.of(spec);
        if (state == Switch.status) {
            return status(session);
        }
        ObjectNode patch = Leader.JSON.createObjectNode().put("containers", state == Switch.on);
        try (Leader leader = session.connect()) {
            Leader.Answer<SettingsDocument> doc = leader.patch(patch, OptionalLong.empty());
            if (session.json()) {
                session.printJson(doc.body());
            } else {
                session.out()
                        .println("containers %s (revision %d)"
                                .formatted(
                                        doc.value().settings().containers() ? "on" : "off",
                                        doc.value().revision()));
            }
            return 0;
        }
    }

    /** The first 12 hex digits of a sha256: enough to tell builds apart in a table. */
    private static String shortDigest(String sha256) {
        return sha256.substring(0, Math.min(12, sha256.length()));
    }

    private static String dash(String value) {
        return value.isEmpty() ? "-" : value;
    }

    /** A row per machine of the Slurm cluster, then whether Slurm loads pyxis, or what it waits for. */
    private static int status(Session session) {
        try (Leader leader = session.connect()) {
            Leader.Answer<SlurmStatus> answer = leader.status();
            if (session.json()) {
                session.printJson(answer.body());
                return 0;
            }
            boolean on = leader.settings().value().settings().containers();
            List<ContainerFile> held = leader.containerFiles().value();
            SlurmStatus s = answer.value();
            PrintWriter out = session.out();
            out.println("containers " + (on ? "on" : "off"));
            Table table = new Table(
                    "NODE",
                    "SLURM",
                    "ENROOT",
                    "PYXIS",
                    "BUILT FOR",
                    "PLUGIN SHA256",
                    "PROLOG",
                    "GPUS",
                    "NVIDIA CLI",
                    "READY");
            boolean all = true;
            int machines = 0;
            List<String> failed = new ArrayList<>();
            for (SlurmStatus.NodeStatus n : s.nodes() == null ? List.<SlurmStatus.NodeStatus>of() : s.nodes()) {
                if (n.roles() == null || n.roles().isEmpty()) {
                    continue; // no Slurm here: nothing of containers either
                }
                machines++;
                ContainerFacts c = n.containers() == null ? ContainerFacts.NONE : n.containers();
                String slurm = n.slurm() == null ? "" : n.slurm();
                boolean ready = c.readyFor(slurm, n.gpus() > 0);
                all &= ready;
                table.row(
                        n.name(),
                        dash(slurm),
                        dash(c.enroot()),
                        dash(c.pyxis()),
                        dash(c.pyxisSlurm()),
                        dash(shortDigest(c.pyxisSha256())),
                        c.prolog() ? "yes" : "no",
                        Integer.toString(n.gpus()),
                        n.gpus() > 0 ? dash(c.nvidiaCli()) : "not needed",
                        ready ? "yes" : "no");
                // Why a machine holds pyxis back, where its containers step says (a digest refused, a build that
                // failed).
                n.steps().stream()
                        .filter(st -> "containers".equals(st.step()) && "failed".equals(st.state()))
                        .findFirst()
                        .ifPresent(st -> failed.add(
                                n.name() + ": " + (st.lastError().isEmpty() ? st.detail() : st.lastError())));
            }
            table.print(out);
            out.println(
                    "pyxis's plugin is " + ContainerFacts.PYXIS_PLUGIN
                            + " on every machine (where plugstack.conf names it); PLUGIN SHA256 is the start of that file's sha256 (--json: all of it)");
            out.println();
            if (!failed.isEmpty()) {
                out.println("the containers step failed on:");
                failed.forEach(line -> out.println("  " + line));
                out.println();
            }
            if (!held.isEmpty()) {
                out.println("the leader holds (ctl slurm containers import), and machines fetch from it:");
                Table files = new Table("FILE", "NAME", "VERSION", "ARCH", "BYTES", "SHA256");
                held.forEach(f ->
                        files.row(f.file(), f.name(), f.version(), f.arch(), Long.toString(f.bytes()), f.sha256()));
                files.print(out);
                out.println();
            }
            List<String> waiting = (s.notes() == null ? List.<String>of() : s.notes())
                    .stream().filter(note -> note.startsWith("containers: ")).toList();
            if (!on) {
                out.println(
                        "Slurm does not load pyxis: containers are off (ctl slurm containers on); what is installed stays");
            } else if (!waiting.isEmpty()) {
                waiting.forEach(note -> out.println(note.substring("containers: ".length())));
            } else if (machines > 0 && all) {
                out.println(
                        "Slurm loads pyxis on every machine: srun --container-image=IMAGE, #SBATCH --container-image=IMAGE");
            } else {
                out.println("Slurm loads pyxis once every Slurm machine has it");
            }
            return 0;
        }
    }
}
