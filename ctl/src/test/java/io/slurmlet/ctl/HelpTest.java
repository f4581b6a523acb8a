package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HelpTest {

    final CtlRunner ctl = new CtlRunner();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "slurm",
                "slurm show",
                "slurm set",
                "slurm lend",
                "slurm unlend",
                "slurm containers",
                "slurm status",
                "slurm nodes",
                "users",
                "users list",
                "users add",
                "users keys",
                "users disable",
                "users enable",
                "users remove",
                "users import",
                "completion"
            })
    void everyCommandHasHelp(String command) {
        String[] words = command.isEmpty() ? new String[0] : command.split(" ");
        String[] args = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(words), java.util.stream.Stream.of("--help"))
                .toArray(String[]::new);
        var r = ctl.runExactly(args);
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("Usage: ctl" + (command.isEmpty() ? "" : " " + command)), r::toString);
        assertEquals("", r.err());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "slurm",
                "slurm show",
                "slurm set",
                "slurm lend",
                "slurm unlend",
                "slurm containers",
                "slurm status",
                "slurm nodes",
                "users",
                "users list",
                "users add",
                "users keys",
                "users disable",
                "users enable",
                "users remove",
                "users import",
                "completion"
            })
    void everyCommandTakesTheSharedOptions(String command) {
        var r = ctl.runExactly((command + " --help").strip().split(" "));
        for (String option :
                new String[] {"-o, --output=json|table", "-e, --errors", "--leader=URL", "--token-file=PATH"}) {
            assertTrue(r.out().contains(option), () -> option + " is missing:\n" + r);
        }
    }

    @Test
    void setsHelpListsTheKeys() {
        var r = ctl.runExactly("slurm", "set", "--help");
        assertTrue(r.out().contains("shared.path"), r::toString);
        assertTrue(r.out().contains("experimental.enable_async_reply"), r::toString);
    }

    @Test
    void aGroupWithoutACommandIsBadUsage() {
        var r = ctl.runExactly();
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("name a command: slurm, users or completion"), r::toString);
        r = ctl.runExactly("slurm");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith(
                                "name what to do: show, set, lend, unlend, containers, status, nodes, join-token, machines, munge-key or auth-key"),
                r::toString);
        assertTrue(r.err().contains("See 'ctl slurm --help'."), r::toString);
        r = ctl.runExactly("users");
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.err().startsWith("name what to do: list, add, keys, disable, enable, remove or import"), r::toString);
        assertTrue(r.err().contains("See 'ctl users --help'."), r::toString);
    }

    @Test
    void versionIsPrinted() {
        var r = ctl.runExactly("--version");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("ctl "), r::toString);
    }

    @Test
    void completionPrintsABashScriptForEveryCommand() {
        var r = ctl.runExactly("completion");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("#!/usr/bin/env bash"), r::toString);
        assertTrue(r.out().contains("complete -F _complete_ctl"), r::toString);
        for (String word : new String[] {
            "slurm",
            "show",
            "set",
            "lend",
            "unlend",
            "containers",
            "status",
            "nodes",
            "--wait",
            "--leader",
            "users",
            "import",
            "--ssh-key-file",
            "\"shared.path\"",
            "(\"on\" \"off\" \"status\")",
            "(\"json\" \"table\")"
        }) {
            assertTrue(r.out().contains(word), () -> word + " is not in the script");
        }
        assertEquals("", r.err());
    }
}
