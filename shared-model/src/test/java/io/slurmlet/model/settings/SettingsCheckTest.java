package io.slurmlet.model.settings;

import static io.slurmlet.model.settings.SettingsBuilder.settings;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** One test per rule of {@link SettingsCheck}, each asserting the whole problem: key, value and message. */
class SettingsCheckTest {

    private static final String NAME_RULE = "letters, digits, _ . - (up to 63, starting with a letter or digit)";

    @Test
    void validSettingsHaveNoProblems() {
        assertEquals(List.of(), settings().check());
    }

    @Test
    void fullSettingsUsingEveryKeyHaveNoProblems() {
        SlurmSettings full = settings()
                .clusterName("lab-1")
                .controller("ctl1")
                .nodes("gpu1", "gpu2", "gpu3.rack_2")
                .lent("gpu1", "gpu3.rack_2")
                .partition("train")
                .shared("/shared", "nfs1.example.org:/export/shared", "")
                .users("slurmlet")
                .asyncReply(true)
                .build();

        assertEquals(List.of(), full.check());
    }

    @Test
    void aSitesOwnPrologSitsBesideContainers() {
        // slurmlet's prolog takes slurm.conf's Prolog and runs the site's after it (the render's, not the settings').
        java.util.Map<String, String> prolog = java.util.Map.of("prolog", "/etc/slurm/site-prolog");
        assertEquals(
                List.of(),
                new SlurmSettings(false, null, null, null, false, null, null, null, null, true, null, prolog).check());
        assertEquals(List.of(), slurmConf(prolog));
        for (String bad : List.of("reboot", "/etc/slurm/a.sh, /etc/slurm/b.sh", "/etc/slurm/a.sh,")) {
            List<Problem> problems = new SlurmSettings(
                            false,
                            null,
                            null,
                            null,
                            false,
                            null,
                            null,
                            null,
                            null,
                            true,
                            null,
                            java.util.Map.of("Prolog", bad))
                    .check();
            assertEquals(1, problems.size(), problems::toString);
            assertEquals("slurm_conf.Prolog", problems.get(0).key());
            assertTrue(
                    problems.get(0).message().contains("must be an absolute path without spaces, comma-separated"),
                    problems.get(0).message());
        }
        assertEquals(
                List.of(),
                new SlurmSettings(
                                false,
                                null,
                                null,
                                null,
                                false,
                                null,
                                null,
                                null,
                                null,
                                false,
                                null,
                                java.util.Map.of("Prolog", "reboot"))
                        .check(),
                "without containers Slurm reads it itself");
    }

    @Test
    void freshSettingsHaveNoProblems() {
        assertEquals(List.of(), SlurmSettings.DEFAULTS.check());
    }

    // controller

    @Test
    void enabledSlurmNeedsAController() {
        assertEquals(
                List.of(new Problem(
                        "controller",
                        "",
                        "controller is empty: name the node that runs slurmctld, as controller=NODE")),
                settings().controller("").check());
    }

    @Test
    void disabledSlurmNeedsNoController() {
        assertEquals(List.of(), settings().enabled(false).controller("").check());
    }

    @Test
    void controllerMustBeANameSlurmTakes() {
        assertAll(
                () -> assertEquals(
                        List.of(new Problem(
                                "controller",
                                "ctl 1",
                                "controller \"ctl 1\" is not a name Slurm takes: " + NAME_RULE
                                        + "; use the machine's host name")),
                        settings().controller("ctl 1").check()),
                () -> assertEquals(
                        List.of(new Problem(
                                "controller",
                                "-ctl1",
                                "controller \"-ctl1\" is not a name Slurm takes: " + NAME_RULE
                                        + "; use the machine's host name")),
                        settings().controller("-ctl1").check()),
                () -> assertEquals(
                        List.of(), settings().controller("c".repeat(63)).check()),
                () -> assertEquals(
                        1, settings().controller("c".repeat(64)).check().size()));
    }

    @Test
    void controllerCannotBeAWordSlurmConfReserves() {
        assertAll(
                () -> assertEquals(
                        List.of(new Problem(
                                "controller",
                                "ALL",
                                "controller \"ALL\" is a word slurm.conf reserves (ALL, DEFAULT): a node cannot be called "
                                        + "that; use the machine's host name")),
                        settings().controller("ALL").check()),
                () -> assertEquals(
                        List.of(new Problem(
                                "controller",
                                "Default",
                                "controller \"Default\" is a word slurm.conf reserves (ALL, DEFAULT): a node cannot be called "
                                        + "that; use the machine's host name")),
                        settings().controller("Default").check()));
    }

    @Test
    void aNodeCannotBeNamedAsTheLeadersTemporaryFiles() {
        assertEquals(
                List.of(new Problem(
                        "nodes[1]",
                        "n1.tmp-0123456789ab",
                        "nodes[1] \"n1.tmp-0123456789ab\" ends as slurmlet's "
                                + "temporary files do (.tmp- and 12 hex digits), and the leader keeps a file a machine under its name: use "
                                + "another name for the machine")),
                settings().nodes("gpu1", "n1.tmp-0123456789ab").check());
        assertEquals(
                List.of(),
                settings().nodes("gpu1", "n1.tmp-a", "n1.tmp-0123456789abc").check(),
                "only the exact form");
    }

    @Test
    void controllerIsOneNodeNotAHostList() {
        assertEquals(
                List.of(
                        new Problem(
                                "controller",
                                "gpu[001-004]",
                                "controller \"gpu[001-004]\" is a Slurm host list, not one node: name one node, as controller=gpu001")),
                settings().controller("gpu[001-004]").check());
    }

    @Test
    void problemMessagesEscapeUnprintableCharacters() {
        assertEquals(
                List.of(new Problem(
                        "controller",
                        "ctl1\n\"x\"",
                        "controller \"ctl1\\u000a\\\"x\\\"\" is not a name Slurm takes: " + NAME_RULE
                                + "; use the machine's host name")),
                settings().controller("ctl1\n\"x\"").check());
    }

    // cluster_name and partition

    @Test
    void clusterNameMustBeANameSlurmTakes() {
        assertEquals(
                List.of(new Problem(
                        "cluster_name",
                        "my lab",
                        "cluster_name \"my lab\" is not a name Slurm takes: " + NAME_RULE + ", as slurmlet")),
                settings().clusterName("my lab").check());
    }

    @Test
    void clusterNameCannotHaveCapitals() {
        assertEquals(
                List.of(new Problem(
                        "cluster_name",
                        "Lab",
                        "cluster_name \"Lab\" has capitals, which Slurm's accounting silently lowers: write it lab")),
                settings().clusterName("Lab").check());
    }

    @Test
    void partitionMustBeANameSlurmTakes() {
        assertEquals(
                List.of(new Problem(
                        "partition",
                        "gpu nodes",
                        "partition \"gpu nodes\" is not a name Slurm takes: " + NAME_RULE + ", as gpu")),
                settings().partition("gpu nodes").check());
    }

    @Test
    void partitionCannotBeAWordSlurmConfReserves() {
        assertAll(
                () -> assertEquals(
                        List.of(
                                new Problem(
                                        "partition",
                                        "default",
                                        "partition \"default\" is a word slurm.conf reserves (ALL, DEFAULT): take another name, as gpu")),
                        settings().partition("default").check()),
                () -> assertEquals(
                        List.of(
                                new Problem(
                                        "partition",
                                        "All",
                                        "partition \"All\" is a word slurm.conf reserves (ALL, DEFAULT): take another name, as gpu")),
                        settings().partition("All").check()));
    }

    // nodes

    @Test
    void nodeMustBeANameSlurmTakes() {
        assertEquals(
                List.of(new Problem(
                        "nodes[1]",
                        "gpu 2",
                        "nodes[1] \"gpu 2\" is not a name Slurm takes: " + NAME_RULE
                                + "; use the machine's host name")),
                settings().nodes("gpu1", "gpu 2").check());
    }

    @Test
    void adminCannotNameNodeAll() {
        assertEquals(
                List.of(new Problem(
                        "nodes[1]",
                        "all",
                        "nodes[1] \"all\" is a word slurm.conf reserves (ALL, DEFAULT): a node cannot be called that; "
                                + "use the machine's host name")),
                settings().nodes("gpu1", "all").check());
    }

    @Test
    void nodesAreNamedOneByOneNotAsAHostList() {
        assertEquals(
                List.of(new Problem(
                        "nodes[1]",
                        "gpu[002-004]",
                        "nodes[1] \"gpu[002-004]\" is a Slurm host list, not one node: name each node, comma-separated, "
                                + "as nodes=gpu001,gpu002")),
                settings().nodes("gpu1", "gpu[002-004]").check());
    }

    @Test
    void nodeCannotBeNamedTwice() {
        assertEquals(
                List.of(new Problem(
                        "nodes[2]", "gpu1", "nodes names gpu1 twice (nodes[0] and nodes[2]): name each node once")),
                settings().nodes("gpu1", "gpu2", "gpu1").check());
    }

    @Test
    void nodeCannotBeNamedTwiceInAnotherCase() {
        assertEquals(
                List.of(
                        new Problem(
                                "nodes[2]",
                                "GPU2",
                                "nodes names GPU2 twice (nodes[1] and nodes[2], as host names ignore case): name each node once")),
                settings().nodes("gpu1", "gpu2", "GPU2").check());
    }

    // lent

    @Test
    void lentNodeMustRunSlurmd() {
        assertEquals(
                List.of(new Problem(
                        "lent[1]",
                        "gpu9",
                        "lent[1] \"gpu9\" is not in nodes: only a node that runs slurmd can be lent; add it to nodes first, "
                                + "or set all_nodes=true")),
                settings().lent("gpu1", "gpu9").check());
    }

    @Test
    void allNodesLetsAnyNodeBeLent() {
        assertEquals(
                List.of(),
                settings().allNodes(true).nodes().lent("gpu9", "gpu1").check());
    }

    @Test
    void lentNodeMustBeANameSlurmTakesEvenWithAllNodes() {
        assertEquals(
                List.of(new Problem(
                        "lent[0]",
                        "gpu 9",
                        "lent[0] \"gpu 9\" is not a name Slurm takes: " + NAME_RULE + "; use the machine's host name")),
                settings().allNodes(true).lent("gpu 9").check());
    }

    @Test
    void lentIsNamedOneByOneNotAsAHostList() {
        assertEquals(
                List.of(new Problem(
                        "lent[0]",
                        "gpu[1-2]",
                        "lent[0] \"gpu[1-2]\" is a Slurm host list, not one node: name each node, comma-separated, "
                                + "as lent=gpu001,gpu002")),
                settings().lent("gpu[1-2]").check());
    }

    @Test
    void lentCannotNameANodeTwice() {
        assertEquals(
                List.of(new Problem(
                        "lent[1]", "gpu1", "lent names gpu1 twice (lent[0] and lent[1]): name each node once")),
                settings().lent("gpu1", "gpu1").check());
    }

    // users

    @Test
    void usersIsSlurmletOrEmpty() {
        assertAll(
                () -> assertEquals(
                        List.of(new Problem(
                                "users",
                                "root",
                                "users \"root\" is not a choice: \"slurmlet\" has slurmlet make them from its accounts, "
                                        + "empty leaves them to the site")),
                        settings().users("root").check()),
                () -> assertEquals(List.of(), settings().users("slurmlet").check()),
                () -> assertEquals(List.of(), settings().users("").check()));
    }

    // shared

    @Test
    void sharedPathMustBeGivenWithAnExport() {
        Problem missing = new Problem(
                "shared.path",
                "",
                "shared.path is empty: say where every machine sees the shared files, as shared.path=/shared");
        assertAll(
                () -> assertEquals(
                        List.of(missing),
                        settings().shared("", "nfs1:/export/shared", "").check()),
                () -> assertEquals(
                        List.of(missing), settings().shared("", "", "gpu1").check()));
    }

    @Test
    void sharedPathWithoutAnExportIsTheSitesOwnMount() {
        assertEquals(List.of(), settings().shared("/lustre/jobs", "", "").check());
    }

    @Test
    void sharedPathMustBeAnAbsolutePathOfPlainNames() {
        for (String path :
                List.of("shared", "/shared/", "/shared/.snapshots", "/shared/../data", "/my shared", "//shared")) {
            assertEquals(
                    List.of(new Problem(
                            "shared.path",
                            path,
                            "shared.path \"" + path + "\" is not an absolute path of plain names, as /shared")),
                    settings().shared(path, "", "").check(),
                    path);
        }
    }

    @Test
    void sharedPathCannotBeASystemDirectory() {
        for (String path : List.of("/etc", "/var/lib", "/home", "/", "/etc/", "/var/../etc", "/./tmp")) {
            assertEquals(
                    List.of(new Problem(
                            "shared.path",
                            path,
                            "shared.path " + path + " is the system's own directory: take one of its own, as /shared")),
                    settings().shared(path, "", "").check(),
                    path);
        }
    }

    @Test
    void sharedTakesTheSitesExportOrANodesNotBoth() {
        assertEquals(
                List.of(
                        new Problem(
                                "shared",
                                "nfs1:/export/shared gpu1",
                                "shared names both the site's export (shared.nfs \"nfs1:/export/shared\") and a node to export it "
                                        + "(shared.server \"gpu1\"): keep one, and clear the other with shared.nfs= or shared.server=")),
                settings().shared("/shared", "nfs1:/export/shared", "gpu1").check());
    }

    @Test
    void nfsExportIsHostColonPath() {
        for (String nfs : List.of("nfs1/export/shared", "nfs1:export", ":/export")) {
            assertEquals(
                    List.of(new Problem(
                            "shared.nfs", nfs, "shared.nfs \"" + nfs + "\" is not host:/path, as nfs1:/export/shared")),
                    settings().shared("/shared", nfs, "").check(),
                    nfs);
        }
        assertEquals(
                List.of(), settings().shared("/shared", "10.0.0.5:/export", "").check());
        assertEquals(
                List.of(), settings().shared("/shared", "[fd00::5]:/export", "").check());
    }

    @Test
    void serverMustBeTheControllerOrANode() {
        assertEquals(
                List.of(
                        new Problem(
                                "shared.server",
                                "gpu9",
                                "shared.server \"gpu9\" is neither the controller nor one of nodes: name one of them, or add it to nodes")),
                settings().shared("/shared", "", "gpu9").check());
    }

    @Test
    void serverMayBeTheControllerANodeOrAnyNodeWithAllNodes() {
        assertAll(
                () -> assertEquals(
                        List.of(), settings().shared("/shared", "", "ctl1").check()),
                () -> assertEquals(
                        List.of(), settings().shared("/shared", "", "gpu2").check()),
                () -> assertEquals(
                        List.of(),
                        settings().allNodes(true).shared("/shared", "", "gpu9").check()));
    }

    @Test
    void serverIsOneNodeNamedAsSlurmTakes() {
        assertAll(
                () -> assertEquals(
                        List.of(new Problem(
                                "shared.server",
                                "gpu[1-2]",
                                "shared.server \"gpu[1-2]\" is a Slurm host list, not one node: name one node, "
                                        + "as shared.server=gpu001")),
                        settings().shared("/shared", "", "gpu[1-2]").check()),
                () -> assertEquals(
                        List.of(new Problem(
                                "shared.server",
                                "DEFAULT",
                                "shared.server \"DEFAULT\" is a word slurm.conf reserves (ALL, DEFAULT): a node cannot be "
                                        + "called that; use the machine's host name")),
                        settings()
                                .allNodes(true)
                                .shared("/shared", "", "DEFAULT")
                                .check()));
    }

    // every problem at once

    @Test
    void everyProblemIsFoundNotOnlyTheFirst() {
        SlurmSettings bad = settings()
                .clusterName("Lab")
                .controller("")
                .nodes("gpu1", "gpu 2", "gpu1", "ALL")
                .lent("gpu9", "gpu1", "gpu1")
                .partition("default")
                .shared("/etc", "nfs1", "gpu7")
                .users("root")
                .build();

        assertEquals(
                List.of(
                        new Problem(
                                "controller",
                                "",
                                "controller is empty: name the node that runs slurmctld, as controller=NODE"),
                        new Problem(
                                "cluster_name",
                                "Lab",
                                "cluster_name \"Lab\" has capitals, which Slurm's accounting silently lowers: write it lab"),
                        new Problem(
                                "partition",
                                "default",
                                "partition \"default\" is a word slurm.conf reserves (ALL, DEFAULT): take another name, as gpu"),
                        new Problem(
                                "nodes[1]",
                                "gpu 2",
                                "nodes[1] \"gpu 2\" is not a name Slurm takes: " + NAME_RULE
                                        + "; use the machine's host name"),
                        new Problem(
                                "nodes[2]",
                                "gpu1",
                                "nodes names gpu1 twice (nodes[0] and nodes[2]): name each node once"),
                        new Problem(
                                "nodes[3]",
                                "ALL",
                                "nodes[3] \"ALL\" is a word slurm.conf reserves (ALL, DEFAULT): a node cannot be called that; "
                                        + "use the machine's host name"),
                        new Problem(
                                "lent[2]", "gpu1", "lent names gpu1 twice (lent[1] and lent[2]): name each node once"),
                        new Problem(
                                "lent[0]",
                                "gpu9",
                                "lent[0] \"gpu9\" is not in nodes: only a node that runs slurmd can be lent; add it to nodes first, "
                                        + "or set all_nodes=true"),
                        new Problem(
                                "users",
                                "root",
                                "users \"root\" is not a choice: \"slurmlet\" has slurmlet make them from its accounts, "
                                        + "empty leaves them to the site"),
                        new Problem(
                                "shared.path",
                                "/etc",
                                "shared.path /etc is the system's own directory: take one of its own, as /shared"),
                        new Problem(
                                "shared",
                                "nfs1 gpu7",
                                "shared names both the site's export (shared.nfs \"nfs1\") and a node to export it "
                                        + "(shared.server \"gpu7\"): keep one, and clear the other with shared.nfs= or shared.server="),
                        new Problem(
                                "shared.nfs", "nfs1", "shared.nfs \"nfs1\" is not host:/path, as nfs1:/export/shared"),
                        new Problem(
                                "shared.server",
                                "gpu7",
                                "shared.server \"gpu7\" is neither the controller nor one of nodes: name one of them, or add it to nodes")),
                bad.check());
        assertEquals(bad.check(), bad.check(), "the same settings give the same problems in the same order");
    }

    @Test
    void disabledSettingsAreStillChecked() {
        assertEquals(
                List.of(new Problem(
                        "partition",
                        "gpu nodes",
                        "partition \"gpu nodes\" is not a name Slurm takes: " + NAME_RULE + ", as gpu")),
                settings().enabled(false).controller("").partition("gpu nodes").check());
    }

    @Test
    void problemReadsAsItsMessage() {
        Problem p = new Problem("users", "root", "users \"root\" is not a choice");
        assertEquals("users \"root\" is not a choice", p.toString());
    }

    private static List<Problem> slurmConf(java.util.Map<String, String> lines) {
        return new SlurmSettings(false, null, null, null, false, null, null, null, null, false, null, lines).check();
    }

    @Test
    void siteSlurmConfLinesAreAccepted() {
        assertEquals(
                List.of(),
                slurmConf(java.util.Map.of(
                        "MaxJobCount",
                        "50000",
                        "KillWait",
                        "60",
                        "MailProg",
                        "/usr/bin/mail",
                        "SchedulerParameters",
                        "bf_continue,bf_max_job_test=1000")));
    }

    @Test
    void siteCannotAddAKeySlurmletWrites() {
        assertEquals(
                List.of(
                        new Problem(
                                "slurm_conf.clustername",
                                "x",
                                "slurm_conf.clustername is a key slurmlet writes itself, so a site cannot add it (ClusterName: set cluster_name)")),
                slurmConf(java.util.Map.of("clustername", "x")));
        assertEquals(
                List.of(
                        new Problem(
                                "slurm_conf.TaskPlugin",
                                "task/none",
                                "slurm_conf.TaskPlugin is a key slurmlet writes itself, so a site cannot add it (TaskPlugin: slurmlet writes it, and its agents depend on it)")),
                slurmConf(java.util.Map.of("TaskPlugin", "task/none")));
    }

    @Test
    void siteSlurmConfKeyMustBeAWord() {
        assertEquals(
                List.of(
                        new Problem(
                                "slurm_conf.Max Job",
                                "Max Job",
                                "slurm_conf key \"Max Job\" is not a slurm.conf key: letters and digits, as slurm_conf.MaxJobCount=50000")),
                slurmConf(java.util.Map.of("Max Job", "1")));
    }

    @Test
    void siteSlurmConfValueMustNotBeEmpty() {
        // An empty SuspendExcNodes= once broke scontrol reconfigure on a peer's clusters.
        assertEquals(
                List.of(
                        new Problem(
                                "slurm_conf.SuspendExcNodes",
                                "",
                                "slurm_conf.SuspendExcNodes is empty: a key without a value breaks scontrol reconfigure; give it a value, or remove it with slurm_conf.SuspendExcNodes=")),
                slurmConf(java.util.Map.of("SuspendExcNodes", "")));
    }

    @Test
    void siteSlurmConfValueIsOneLine() {
        assertEquals(
                List.of(
                        new Problem(
                                "slurm_conf.KillWait",
                                "60\nNodeName=evil",
                                "slurm_conf.KillWait \"60\\u000aNodeName=evil\" holds a line break at character 3, which would end or break its slurm.conf line: one line of plain text")),
                slurmConf(java.util.Map.of("KillWait", "60\nNodeName=evil")));
    }

    @Test
    void siteSlurmConfValueCannotCloseItsQuoteContinueItsLineOrHoldWhatIsNotText() {
        // Each of these once passed the check: the first rendered MaxJobCount="1" AuthType="auth/none",
        // a key slurmlet owns on the same line; the second joined the line after it.
        for (String value : List.of(
                "1\" AuthType=\"auth/none",
                "1\\",
                "\"1",
                "a#b",
                "60\t",
                "ab\ud800",
                "\u202eevil",
                "caf\u00e9",
                "x\u2028y")) {
            List<Problem> problems = slurmConf(java.util.Map.of("KillWait", value));
            assertEquals(1, problems.size(), value);
            assertEquals("slurm_conf.KillWait", problems.get(0).key(), value);
            assertEquals(value, problems.get(0).value(), value);
            String message = problems.get(0).message();
            assertTrue(message.startsWith("slurm_conf.KillWait " + SettingsCheck.quote(value) + " holds "), message);
            assertTrue(
                    io.slurmlet.model.text.Text.unsafe(message).isEmpty(),
                    "the message is one line of text: " + message);
        }
        assertEquals(
                List.of(),
                slurmConf(java.util.Map.of(
                        "SchedulerParameters", "bf_window=2880,bf_interval=60", "MailProg", "/usr/bin/site mail")),
                "= , / and spaces are fine");
    }

    @Test
    void siteSlurmConfKeyTwiceInAnotherCase() {
        assertEquals(
                List.of(
                        new Problem(
                                "slurm_conf.maxjobcount",
                                "2",
                                "slurm_conf names MaxJobCount twice (MaxJobCount and maxjobcount), and slurm.conf ignores case: keep one, and clear the other with slurm_conf.maxjobcount=")),
                slurmConf(java.util.Map.of("MaxJobCount", "1", "maxjobcount", "2")));
    }
}
