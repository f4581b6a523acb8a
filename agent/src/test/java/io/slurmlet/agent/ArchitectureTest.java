package io.slurmlet.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Which way the agent's packages may depend on each other, read from the sources (imports and
 * names written out in full): the node role never reaches into the leader's, the store's or the REST API's code,
 * the leader never into the API, the node role, or a node step (a preview runs the steps' pure
 * diffs, never the steps); the pieces both roles share (trust, store, reconcile, the steps'
 * packages, their graph) into neither role.
 */
class ArchitectureTest {

    static final Path SOURCES = Path.of("src/main/java/io/slurmlet/agent");
    static final Pattern REFERENCE =
            Pattern.compile("io\\.slurmlet\\.agent\\.([a-z]+)((?:\\.[a-z]+)*)(?:\\.([A-Z]\\w*))?");

    /** Every reference from the package {@code from} (and below) to another of the agent's, as "file → package.Class". */
    static List<String> references(String from) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES.resolve(from))) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String text = Files.readString(file);
                Matcher m = REFERENCE.matcher(text);
                while (m.find()) {
                    found.add(SOURCES.relativize(file) + " → " + m.group(1) + m.group(2)
                            + (m.group(3) == null ? "" : "." + m.group(3)));
                }
            }
        }
        return found;
    }

    static List<String> offending(String from, Pattern forbidden) throws IOException {
        return references(from).stream()
                .filter(r -> forbidden.matcher(r.substring(r.indexOf("→ ") + 2)).lookingAt())
                .toList();
    }

    @Test
    void theNodeRoleUsesNothingOfTheLeadersOrTheApis() throws IOException {
        assertEquals(List.of(), offending("node", Pattern.compile("(leader|api)\\b")));
    }

    @Test
    void theNodeRoleFindsItsLeaderThroughTrustNotTheStore() throws IOException {
        assertEquals(List.of(), offending("node", Pattern.compile("store\\b")));
    }

    @Test
    void theLeaderUsesNeitherTheApiNorTheNodeRoleNorANodeStep() throws IOException {
        assertEquals(List.of(), offending("leader", Pattern.compile("(api|node)\\b|[a-z.]+\\.[A-Z]\\w*Step$")));
        assertTrue(
                references("leader").stream().anyMatch(r -> r.endsWith("storage.StorageDiff")),
                "the preview runs the steps' pure diffs: " + references("leader"));
    }

    @Test
    void whatBothRolesShareUsesNeitherRole() throws IOException {
        for (String shared : List.of(
                "trust",
                "store",
                "reconcile",
                "system",
                "munge",
                "storage",
                "slurm",
                "pam",
                "users",
                "packages",
                "containers",
                "facts",
                "steps")) {
            assertEquals(List.of(), offending(shared, Pattern.compile("(leader|node|api)\\b")), shared);
        }
    }
}
