package io.slurmlet.agent.facts;

import io.slurmlet.agent.containers.ContainersDiff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.model.facts.ContainerFacts;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the machine has for jobs in containers: enroot, the pyxis the containers step built, and
 * nvidia-container-cli; a file that cannot be read counts as absent.
 */
record ContainerTools(Commands commands, HostFiles files, Duration deadline) {

    static final Path ENROOT = Path.of("/usr/bin/enroot");

    private static final Pattern ENROOT_VERSION =
            Pattern.compile("(?m)^export ENROOT_VERSION=\"([0-9A-Za-z.+~_-]{1,64})\"$");

    /**
     * What the machine has for jobs in containers: enroot's version (from its script), the pyxis the
     * containers step built (its stamp, where the plugin is there; the digest reported is the plugin
     * file's own), and slurmlet's prolog. Nothing where none of it is there;
     * a file that cannot be read counts as absent.
     */
    ContainerFacts read() {
        try {
            String enroot = files.read(ENROOT)
                    .map(ENROOT_VERSION::matcher)
                    .filter(Matcher::find)
                    .map(m -> m.group(1))
                    .orElse("");
            String plugin = files.bytes(Path.of(ContainerFacts.PYXIS_PLUGIN))
                    .map(ManagedFiles::sha256)
                    .orElse("");
            Optional<String> text = files.read(Path.of(ContainersDiff.PYXIS_STAMP));
            // A stamp without its plugin, or one that cannot be read, is no pyxis: the containers step builds it again.
            // A plugin
            // that is not the one its stamp records is reported with its own digest (the two differ for a moment while
            // the
            // containers step installs a new build, plugin then stamp: the leader is not made to take pyxis out for
            // that);
            // the slurm step does not load such a plugin, and the containers step builds it again.
            Optional<ContainersDiff.Stamp> stamp = text.isPresent() && !plugin.isEmpty()
                    ? ContainersDiff.Stamp.parse(text.get().getBytes(StandardCharsets.UTF_8))
                    : Optional.empty();
            boolean prolog = files.read(Path.of(ContainerFacts.PROLOG))
                    .filter(script -> script.contains("written by slurmlet"))
                    .isPresent();
            return new ContainerFacts(
                    enroot,
                    stamp.map(st -> st.pyxis()).orElse(""),
                    stamp.map(st -> st.slurm()).orElse(""),
                    stamp.isPresent() ? plugin : "",
                    prolog,
                    nvidiaCli());
        } catch (UncheckedIOException e) {
            return ContainerFacts.NONE;
        }
    }

    static final Path NVIDIA_CLI = Path.of("/usr/bin/nvidia-container-cli");
    private static final Pattern NVIDIA_CLI_VERSION =
            Pattern.compile("(?m)^cli-version: ([0-9A-Za-z.+~_-]{1,64})\\s*$");

    /**
     * nvidia-container-cli's version, as its {@code --version} says it ({@code cli-version: 1.17.8}),
     * where it is installed; "" where it is not, or does not answer so (it needs no driver for that).
     */
    private String nvidiaCli() {
        if (!files.list(NVIDIA_CLI.getParent()).contains(NVIDIA_CLI)) {
            return "";
        }
        try {
            Commands.Result r = commands.run(List.of(NVIDIA_CLI.toString(), "--version"), deadline);
            Matcher m = NVIDIA_CLI_VERSION.matcher(r.stdout());
            return r.succeeded() && m.find() ? m.group(1) : "";
        } catch (CommandFailed e) {
            return "";
        }
    }
}
