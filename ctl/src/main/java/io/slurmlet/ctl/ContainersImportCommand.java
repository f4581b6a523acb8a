package io.slurmlet.ctl;

import io.slurmlet.model.api.ContainerFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ctl slurm containers import FILE...}: hands the files of the leader's artifact table to the
 * leader, for sites whose machines reach no mirror. Every file is read and checked here first (its
 * size, and its digest against {@code --sums} where given), so nothing is sent while one of them is
 * wrong; the leader then keeps each one only if its digest is the one its table pins, or, where the
 * table pins none, the one {@code --sums} lists.
 */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        description = {
            "Hands the files of jobs in containers (enroot's packages, pyxis's source, nvidia-container-cli's "
                    + "packages) to the leader, for machines that reach no mirror: each machine then fetches them from the leader.",
            "Each FILE is named as the leader's table names it (enroot_4.1.2-1_amd64.deb, pyxis-0.24.0.tar.gz, ...). The "
                    + "leader keeps a file only if its sha256 is the one its table pins; where the table pins none, give the "
                    + "digests their publisher lists with --sums (the format sha256sum prints). Nothing unverified is kept or "
                    + "installed, and every machine checks the digest again before it installs.",
            "Example: ctl slurm containers import --sums SHA256SUMS enroot_4.1.2-1_amd64.deb enroot+caps_4.1.2-1_amd64.deb "
                    + "pyxis-0.24.0.tar.gz"
        })
public class ContainersImportCommand implements Callable<Integer> {

    /** The leader's own bound on a file (its admin API's largest body). */
    static final long MAX_BYTES = 8L << 20;
    /** A line sha256sum prints: the digest, a space, a space or '*', the file's name. */
    private static final Pattern SUMS_LINE = Pattern.compile("([0-9a-fA-F]{64}) [ *](.+)");

    @Spec
    CommandSpec spec;

    @Parameters(
            index = "0..*",
            arity = "1..*",
            paramLabel = "FILE",
            description = "The files, named as the leader's table names them.")
    List<Path> files;

    @Option(
            names = "--sums",
            paramLabel = "SHA256SUMS",
            description =
                    "The digests their publisher lists, as sha256sum prints them: needed for a file the leader's table pins no digest for.")
    Path sums;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        Map<String, String> listed = sums == null ? Map.of() : readSums();
        record Ready(Path path, String name, byte[] bytes, Optional<String> sha256) {}
        List<Ready> ready = new ArrayList<>();
        for (Path path : files) {
            String name = path.getFileName() == null ? "" : path.getFileName().toString();
            byte[] bytes = read(path);
            String got = sha256(bytes);
            Optional<String> given = Optional.ofNullable(listed.get(name));
            if (sums != null && given.isEmpty()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "%s lists no digest for %s: nothing was sent (add its line, as ".formatted(sums, name)
                                + "sha256sum prints it, or leave the file out)");
            }
            if (given.isPresent() && !given.get().equals(got)) {
                throw new ParameterException(
                        spec.commandLine(),
                        ("%s has sha256 %s, and %s lists %s: nothing was sent (this is not "
                                        + "the file its publisher lists; fetch it again)")
                                .formatted(path, got, sums, given.get()));
            }
            ready.add(new Ready(path, name, bytes, given));
        }
        try (Leader leader = session.connect()) {
            List<ContainerFile> kept = new ArrayList<>();
            for (Ready r : ready) {
                try {
                    kept.add(leader.importContainerFile(r.name(), r.bytes(), r.sha256())
                            .value());
                } catch (CtlException e) {
                    if (!kept.isEmpty()) {
                        session.err()
                                .println("the leader keeps what it was handed before: "
                                        + String.join(
                                                ", ",
                                                kept.stream()
                                                        .map(ContainerFile::file)
                                                        .toList()));
                    }
                    throw e;
                }
            }
            if (session.json()) {
                session.printJson(Leader.JSON.valueToTree(kept).toString());
                return 0;
            }
            for (ContainerFile f : kept) {
                session.out()
                        .println("imported %s %s %s (%s, %d bytes, sha256 %s)"
                                .formatted(f.name(), f.version(), f.arch(), f.file(), f.bytes(), f.sha256()));
            }
            session.out().println("every Slurm machine fetches these from the leader (ctl slurm containers status)");
            return 0;
        }
    }

    private byte[] read(Path path) {
        try {
            long size = Files.size(path);
            if (size > MAX_BYTES) {
                throw new ParameterException(
                        spec.commandLine(),
                        ("%s is %d bytes, over the %d MiB the leader takes: serve it from a "
                                        + "mirror (slurmlet.leader.containers.mirror); nothing was sent")
                                .formatted(path, size, MAX_BYTES >> 20));
            }
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "cannot read %s: %s; nothing was sent".formatted(path, IoErrors.describe(e)));
        }
    }

    /** The file names {@link #sums} lists, with their digests (lower case). */
    private Map<String, String> readSums() {
        List<String> lines;
        try {
            lines = Files.readAllLines(sums, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "cannot read %s: %s; nothing was sent".formatted(sums, IoErrors.describe(e)));
        }
        Map<String, String> listed = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SUMS_LINE.matcher(line);
            if (!m.matches()) {
                throw new ParameterException(
                        spec.commandLine(),
                        ("%s, line %d, is not a line sha256sum prints (64 hex digits, two "
                                        + "spaces, the file's name): nothing was sent")
                                .formatted(sums, i + 1));
            }
            String name = m.group(2).substring(m.group(2).lastIndexOf('/') + 1);
            listed.put(name, m.group(1).toLowerCase(Locale.ROOT));
        }
        return listed;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
