package io.slurmlet.ctl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --ssh-key} and {@code --ssh-key-file}, as {@code ctl users add} and {@code keys} take them.
 * ctl only reads the files; the leader judges the keys, and names each one it refuses.
 */
public class SshKeyOptions {

    @Option(
            names = "--ssh-key",
            paramLabel = "KEY",
            description = "A public key, a line as in id_ed25519.pub: 'ssh-ed25519 AAAA… comment'. Repeat it for more.")
    List<String> keys = new ArrayList<>();

    @Option(
            names = "--ssh-key-file",
            paramLabel = "FILE",
            description = "A file of public keys, one a line, as id_ed25519.pub; blank and # lines are skipped. "
                    + "Repeat it for more.")
    List<Path> files = new ArrayList<>();

    /** Whether neither option was given. */
    boolean none() {
        return keys.isEmpty() && files.isEmpty();
    }

    /**
     * The keys given with {@code --ssh-key}, in order, then each file's.
     *
     * @throws ParameterException naming the option, the file and why, for a file that cannot be read,
     *                            holds a private key, or holds no key
     */
    List<String> read(CommandSpec spec) {
        List<String> all = new ArrayList<>();
        keys.stream().map(String::strip).forEach(all::add);
        for (Path file : files) {
            List<String> lines = lines(spec, file);
            if (lines.stream().anyMatch(l -> l.startsWith("-----BEGIN"))) {
                throw new ParameterException(
                        spec.commandLine(),
                        ("--ssh-key-file %s holds a private key: give the public one "
                                        + "beside it (%s.pub), and keep the private key to its owner")
                                .formatted(file, file));
            }
            List<String> found = lines.stream()
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList();
            if (found.isEmpty()) {
                throw new ParameterException(
                        spec.commandLine(),
                        ("--ssh-key-file %s has no key: it needs a public key a line, " + "as in ~/.ssh/id_ed25519.pub")
                                .formatted(file));
            }
            all.addAll(found);
        }
        return all;
    }

    private static List<String> lines(CommandSpec spec, Path file) {
        try {
            if (Files.isDirectory(file)) {
                throw new IOException("is a directory");
            }
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
                    .lines()
                    .map(String::strip)
                    .toList();
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "cannot read --ssh-key-file %s: %s".formatted(file, IoErrors.describe(e)));
        }
    }
}
