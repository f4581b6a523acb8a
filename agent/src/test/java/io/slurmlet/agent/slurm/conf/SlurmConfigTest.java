package io.slurmlet.agent.slurm.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SlurmConfigTest {

    static SlurmSettings settings(boolean asyncReply, String users, List<String> nodes, List<String> lent) {
        return new SlurmSettings(
                true, "lab", "ctl0", nodes, false, lent, "gpu", null, users, false, new Experimental(asyncReply));
    }

    static NodeFacts gpuNode(String name, String address, int gpus) {
        return NodeFacts.builder(name)
                .address(address)
                .cpus(64)
                .sockets(2)
                .coresPerSocket(16)
                .threadsPerCore(2)
                .memoryMiB(1_031_000)
                .gpus(gpus == 0 ? List.of() : List.of(new NodeFacts.Gpus("NVIDIA H100 80GB HBM3", gpus)))
                .os("debian 12")
                .slurmVersion("22.05.8")
                .build();
    }

    static Map<String, NodeFacts> facts(String... names) {
        Map<String, NodeFacts> facts = new HashMap<>();
        facts.put("ctl0", gpuNode("ctl0", "10.0.0.1", 0));
        for (String n : names) {
            facts.put(n, gpuNode(n, "", 8));
        }
        return facts;
    }

    static Rendered render(SlurmSettings s, Map<String, NodeFacts> facts, String version) {
        return SlurmConfig.render(
                new RenderInput(s, facts, SlurmVersion.parse(version).orElseThrow()));
    }

    static String slurmConf(Rendered r) {
        assertTrue(r.ok(), r.problems().toString());
        return r.files().get("slurm.conf");
    }

    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "23.02.7", "23.11.10", "24.05.8", "24.11.5", "25.05.3", "25.11.1", "26.05.5"})
    void everyVersionGetsTheFourFilesEachWithOurHeader(String version) {
        Rendered r = render(settings(false, "slurmlet", List.of("g1"), List.of("g1")), facts("g1"), version);
        assertEquals(
                List.of("slurm.conf", "cgroup.conf", "gres.conf", "plugstack.conf"),
                List.copyOf(r.files().keySet()));
        r.files()
                .forEach((name, text) -> assertTrue(
                        text.startsWith("# " + name + ": written by slurmlet, with its generator for Slurm "
                                        + r.generator() + ".\n")
                                && text.contains("Change the cluster with `ctl slurm set`"),
                        name + ":\n" + text));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"22.05.8", "23.02.1", "24.05.1", "24.11.5", "25.05.0", "25.11.0", "26.05.5", "26.11.0", "27.05.1"
            })
    void theGeneratorIsChosenByTheControllersRelease(String version) {
        String expected = switch (version.substring(0, 5)) {
            case "22.05" -> "22.05";
            case "23.02", "24.05" -> "23.02";
            case "24.11" -> "24.11";
            case "25.05" -> "25.05";
            case "25.11", "26.05" -> "25.11";
            default -> "26.11";
        };
        assertEquals(
                expected,
                render(settings(false, "", List.of(), List.of()), facts(), version)
                        .generator());
    }

    @Test
    void aVersionOlderThanTheOldestGeneratorIsRefused() {
        Rendered r = render(settings(false, "", List.of(), List.of()), facts(), "21.08.8");
        assertFalse(r.ok());
        assertTrue(r.files().isEmpty());
        assertEquals(
                "the controller ctl0 runs Slurm 21.08.8, older than 22.05, the oldest release slurmlet writes "
                        + "for: upgrade Slurm on it to 22.05 or later",
                r.problems().get(0).message());
    }

    @Test
    void aVersionNewerThanAnyKnownIsWrittenAsTheNewestAndSaysSo() {
        Rendered r = render(settings(false, "", List.of(), List.of()), facts(), "27.05.1");
        assertTrue(r.ok());
        assertEquals(
                List.of("the controller runs Slurm 27.05.1, newer than 26.05, the newest release slurmlet "
                        + "is proven against: its files are written as for 26.11; a newer slurmlet may know more"),
                r.notes());
        assertTrue(render(settings(false, "", List.of(), List.of()), facts(), "26.05.5")
                .notes()
                .isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "24.11.5", "25.05.2"})
    void asyncReplyBeforeSlurm2511IsAProblemNamingKeyVersionAndFix(String version) {
        Rendered r = render(settings(true, "", List.of("g1"), List.of()), facts("g1"), version);
        assertTrue(r.files().isEmpty());
        assertEquals(1, r.problems().size());
        assertEquals("experimental.enable_async_reply", r.problems().get(0).key());
        assertEquals(
                ("experimental.enable_async_reply needs Slurm 25.11 or later, and the controller runs %s: "
                                + "upgrade Slurm on the controller, or set experimental.enable_async_reply=false")
                        .formatted(version),
                r.problems().get(0).message());
    }

    @Test
    void asyncReplyFromSlurm2511IsInSlurmctldParametersOnlyWhenAskedFor() {
        assertTrue(slurmConf(render(settings(true, "", List.of(), List.of()), facts(), "25.11.0"))
                .contains("\nSlurmctldParameters=enable_async_reply\n"));
        assertFalse(slurmConf(render(settings(false, "", List.of(), List.of()), facts(), "26.05.5"))
                .contains("SlurmctldParameters"));
        for (String old : List.of("22.05.8", "24.11.5", "25.05.1")) {
            assertFalse(
                    slurmConf(render(settings(false, "", List.of(), List.of()), facts(), old))
                            .contains("enable_async_reply"),
                    old);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"26.11.0", "27.05.1"})
    void asyncReplyFromSlurm2611IsNeverWrittenAndTheNoteSaysWhy(String version) {
        Rendered asked = render(settings(true, "", List.of(), List.of()), facts(), version);
        assertEquals(List.of(), asked.problems());
        assertFalse(slurmConf(asked).contains("enable_async_reply"), slurmConf(asked));
        assertFalse(slurmConf(asked).contains("SlurmctldParameters"), slurmConf(asked));
        assertTrue(
                asked.notes()
                        .contains(("experimental.enable_async_reply: Slurm %s always replies asynchronously "
                                        + "(26.11 removed the enable_async_reply parameter), so nothing is written for it; "
                                        + "set experimental.enable_async_reply=false to drop this note")
                                .formatted(version)),
                asked.notes().toString());
        Rendered not = render(settings(false, "", List.of(), List.of()), facts(), version);
        assertTrue(
                not.notes().stream().noneMatch(n -> n.contains("enable_async_reply")),
                not.notes().toString());
        assertEquals(slurmConf(not), slurmConf(asked), "the setting changes nothing in the files from 26.11");
    }

    @Test
    void lentNodesStartUnknownAndOthersDrainedWithOurReason() {
        String conf = slurmConf(
                render(settings(false, "", List.of("g1", "g2"), List.of("g2")), facts("g1", "g2"), "22.05.8"));
        assertTrue(
                conf.contains(
                        "\nNodeName=g1 CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=2 "
                                + "RealMemory=1014616 Gres=gpu:nvidia_h100_80gb_hbm3:8 State=DRAIN Reason=\"slurmlet: not lent\"\n"),
                conf);
        assertTrue(
                conf.contains("\nNodeName=g2 CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=2 "
                        + "RealMemory=1014616 Gres=gpu:nvidia_h100_80gb_hbm3:8 State=UNKNOWN\n"),
                conf);
    }

    @Test
    void thePartitionListsEveryNodeAsACompressedHostList() {
        List<String> nodes = IntStream.rangeClosed(1, 128)
                .mapToObj(i -> "gpu%03d".formatted(i))
                .toList();
        String conf = slurmConf(
                render(settings(false, "", nodes, List.of()), facts(nodes.toArray(String[]::new)), "24.11.5"));
        assertTrue(
                conf.contains("\nPartitionName=gpu Nodes=gpu[001-128] Default=YES MaxTime=INFINITE State=UP\n"), conf);
    }

    @Test
    void theControllerIsNamedWithItsAddress() {
        assertTrue(slurmConf(render(settings(false, "", List.of(), List.of()), facts(), "22.05.8"))
                .contains("\nSlurmctldHost=ctl0(10.0.0.1)\n"));
        assertTrue(slurmConf(render(settings(false, "", List.of(), List.of()), Map.of(), "22.05.8"))
                .contains("\nSlurmctldHost=ctl0\n"));
    }

    @Test
    void cgroupProctrackAndContainWheneverSlurmletMakesTheUsers() {
        String withUsers = slurmConf(render(settings(false, "slurmlet", List.of(), List.of()), facts(), "22.05.8"));
        assertTrue(
                withUsers.contains("\nProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup,task/affinity\n"
                        + "PrologFlags=Contain\n"),
                withUsers);
        String siteUsers = slurmConf(render(settings(false, "", List.of(), List.of()), facts(), "22.05.8"));
        assertFalse(siteUsers.contains("PrologFlags"));
    }

    @Test
    void nodesWithoutFactsWaitAndStatusSaysSo() {
        Rendered r = render(settings(false, "", List.of("g1", "g2", "g3"), List.of()), facts("g2"), "22.05.8");
        assertEquals(List.of("not in Slurm until their agents report their machines: g[1,3]"), r.notes());
        assertTrue(slurmConf(r).contains("PartitionName=gpu Nodes=g2 "));
        assertFalse(slurmConf(r).contains("NodeName=g1"));
    }

    @Test
    void gresLinesPerVersion() {
        SlurmSettings s = settings(false, "", List.of("g1", "c1"), List.of());
        Map<String, NodeFacts> facts = facts("g1");
        facts.put("c1", gpuNode("c1", "", 0));
        assertEquals(
                "NodeName=g1 Name=gpu Type=nvidia_h100_80gb_hbm3 File=/dev/nvidia[0-7]",
                lastLine(render(s, facts, "22.05.8").files().get("gres.conf")));
        assertEquals(
                "NodeName=g1 AutoDetect=nvidia",
                lastLine(render(s, facts, "24.11.5").files().get("gres.conf")));
        assertEquals(
                "NodeName=g1 AutoDetect=nvidia Name=gpu Type=nvidia_h100_80gb_hbm3",
                lastLine(render(s, facts, "25.05.0").files().get("gres.conf")));
        assertTrue(slurmConf(render(s, facts, "22.05.8")).contains("\nGresTypes=gpu\n"));
        assertFalse(slurmConf(render(s, Map.of("c1", gpuNode("c1", "", 0)), "22.05.8"))
                .contains("GresTypes"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "23.11.4", "24.11.5", "26.05.5"})
    void cgroupConfIsAlwaysWrittenWithoutTheDefunctCgroupAutomount(String version) {
        String cgroup = render(settings(false, "", List.of(), List.of()), facts(), version)
                .files()
                .get("cgroup.conf");
        assertTrue(
                cgroup.contains("\nCgroupPlugin=autodetect\n") && cgroup.contains("\nConstrainDevices=yes\n"), cgroup);
        assertFalse(cgroup.contains("CgroupAutomount"), cgroup);
        assertFalse(cgroup.contains("EnableControllers"), "22.05 refuses EnableControllers: " + cgroup);
    }

    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "24.11.5", "26.05.5"})
    void neitherJobContainerTypeNorNamespaceTypeIsWritten(String version) {
        // 22.05 and 24.11 refuse NamespaceType (fatal), 26.05 warns on JobContainerType; leaving both
        // out is accepted by all three (system-tests/slurm/FINDINGS.md).
        String conf = slurmConf(render(settings(false, "slurmlet", List.of("g1"), List.of()), facts("g1"), version));
        assertFalse(conf.contains("JobContainerType") || conf.contains("NamespaceType"), conf);
    }

    @Test
    void defMemPerCpuIsTheSmallestNodesShareAndASiteMayReplaceIt() {
        Map<String, NodeFacts> facts = facts("g1");
        facts.put(
                "small",
                NodeFacts.builder("small")
                        .cpus(4)
                        .sockets(1)
                        .coresPerSocket(4)
                        .threadsPerCore(1)
                        .memoryMiB(8_192)
                        .build());
        String conf = slurmConf(render(settings(false, "", List.of("g1", "small"), List.of()), facts, "24.11.5"));
        assertTrue(conf.contains("\nDefMemPerCPU=1920\n"), conf);
        SlurmSettings own = new SlurmSettings(
                true,
                "lab",
                "ctl0",
                List.of("g1"),
                false,
                List.of(),
                "gpu",
                null,
                "",
                false,
                null,
                Map.of("DefMemPerCPU", "4096"));
        String replaced = slurmConf(render(own, facts, "24.11.5"));
        assertTrue(
                replaced.endsWith("DefMemPerCPU=4096\n")
                        && replaced.indexOf("DefMemPerCPU") == replaced.lastIndexOf("DefMemPerCPU"),
                replaced);
    }

    @Test
    void realMemoryKeepsAMarginForTheSystem() {
        assertEquals(23_552 - 1_177, Slurm2205.realMemory(23_552));
        assertEquals(4_096 - 512, Slurm2205.realMemory(4_096));
        assertEquals(2_097_152 - 16_384, Slurm2205.realMemory(2_097_152));
    }

    @Test
    void theSameInputGivesTheSameBytesWhateverTheOrderOfFacts() {
        SlurmSettings s = settings(false, "slurmlet", List.of("g3", "g1", "g2"), List.of("g2"));
        Rendered a = render(s, facts("g1", "g2", "g3"), "24.11.5");
        Map<String, NodeFacts> shuffled = new java.util.LinkedHashMap<>();
        for (String n : List.of("g3", "ctl0", "g2", "g1")) {
            shuffled.put(n, facts("g1", "g2", "g3").get(n));
        }
        assertEquals(a.files(), render(s, shuffled, "24.11.5").files());
        assertTrue(slurmConf(a).indexOf("NodeName=g1") < slurmConf(a).indexOf("NodeName=g2"));
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines[lines.length - 1];
    }

    @Test
    void siteLinesComeLastInKeyOrderAndReplaceOurDefaults() {
        SlurmSettings s = new SlurmSettings(
                true,
                "lab",
                "ctl0",
                List.of("g1"),
                false,
                List.of("g1"),
                "gpu",
                null,
                "",
                false,
                null,
                Map.of("MaxJobCount", "50000", "MailProg", "/usr/bin/mail", "KillWait", "60"));
        String conf = slurmConf(render(s, facts("g1"), "24.11.5"));
        assertTrue(conf.endsWith("""

                # The site's own lines (settings: slurm_conf)
                KillWait=60
                MailProg=/usr/bin/mail
                MaxJobCount=50000
                """), conf);
        assertFalse(conf.contains("MailProg=/bin/true"), conf);
        assertTrue(conf.contains("\nSchedulerType=sched/backfill\n"), conf);
    }

    static SlurmSettings withConf(Map<String, String> conf) {
        return new SlurmSettings(
                true, "lab", "ctl0", List.of("n1"), false, List.of(), "gpu", null, null, false, null, conf);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"22.05.8", "24.11.5", "26.05.5"})
    void aSiteKeyTheControllersReleaseDoesNotKnowWritesNoFileAndNamesTheNearestKey(String version) {
        Rendered typo = render(withConf(Map.of("MaxJobCnt", "50000")), facts("n1"), version);
        assertTrue(typo.files().isEmpty(), "no file slurmctld would refuse");
        assertEquals(1, typo.problems().size(), typo.problems().toString());
        assertEquals("slurm_conf.MaxJobCnt", typo.problems().get(0).key());
        String release = version.substring(0, 5);
        assertEquals(
                ("MaxJobCnt is not a slurm.conf key of Slurm %s, which the controller ctl0 runs: slurmctld, every slurmd and "
                                + "every Slurm command would stop at it (\"Parsing error at unrecognized key\"); did you mean MaxJobCount?; clear "
                                + "it with slurm_conf.MaxJobCnt= (the keys are those of slurm.conf(5) for %s)")
                        .formatted(release, release),
                typo.problems().get(0).message());
        assertFalse(
                render(withConf(Map.of("FooBar", "1")), facts("n1"), version)
                        .problems()
                        .get(0)
                        .message()
                        .contains("did you mean"),
                "no hint that is not near");
        assertTrue(
                slurmConf(render(
                                withConf(Map.of("maxjobcount", "50000", "SwitchType", "switch/none")),
                                facts("n1"),
                                version))
                        .contains("maxjobcount=50000"),
                "a key it knows, in any case");
    }

    @Test
    void aKeyGoneFromAReleaseIsRefusedAndAReleaseWithoutAListIsNotChecked() {
        assertTrue(
                render(withConf(Map.of("FastSchedule", "1")), facts("n1"), "22.05.8")
                                .problems()
                                .size()
                        == 1,
                "FastSchedule is gone from 22.05's slurm.conf(5)");
        assertTrue(KnownKeys.of("24.11").orElseThrow().containsKey("maxjobcount"));
        assertTrue(KnownKeys.of("23.02").isEmpty(), "a release Debian does not ship is not checked");
        assertTrue(
                render(withConf(Map.of("FooBar", "1")), facts("n1"), "23.02.7").ok(), "not checked there");
    }

    /** The plugins of Debian 13's slurm-wlm-basic-plugins that these tests name (24.11). */
    static final List<String> TRIXIE_PLUGINS = List.of(
            "auth_munge",
            "jobacct_gather_cgroup",
            "jobacct_gather_linux",
            "mpi_pmi2",
            "mpi_pmix",
            "mpi_pmix_v5",
            "sched_backfill",
            "sched_builtin",
            "switch_nvidia_imex",
            "task_affinity",
            "task_cgroup");

    static Map<String, NodeFacts> withControllerPlugins(List<String> plugins) {
        Map<String, NodeFacts> facts = facts("n1");
        facts.put("ctl0", facts.get("ctl0").withSlurmPlugins(plugins));
        return facts;
    }

    @Test
    void aPluginTheControllerDoesNotHaveWritesNoFileAndNamesTheOnesItHas() {
        Rendered typo = render(
                withConf(Map.of("JobAcctGatherType", "jobacct_gather/cgroupp")),
                withControllerPlugins(TRIXIE_PLUGINS),
                "24.11.5");
        assertTrue(typo.files().isEmpty(), "no file slurmctld would stop at");
        assertEquals(1, typo.problems().size(), typo.problems().toString());
        assertEquals("slurm_conf.JobAcctGatherType", typo.problems().get(0).key());
        assertEquals("jobacct_gather/cgroupp", typo.problems().get(0).value());
        assertEquals(
                "JobAcctGatherType names the plugin jobacct_gather/cgroupp, which the controller ctl0 (Slurm 24.11.5) does not "
                        + "have (no jobacct_gather_cgroupp.so in its plugin folder; its jobacct_gather plugins: jobacct_gather/cgroup, "
                        + "jobacct_gather/linux): every daemon and command that loads it would stop at it (\"fatal: Can't find plugin for "
                        + "jobacct_gather/cgroupp\"; slurmctld, slurmd and srun do). Did you mean jobacct_gather/cgroup? Name one it has, "
                        + "install the package that brings it on the controller and every node first, or clear the key with "
                        + "slurm_conf.JobAcctGatherType=",
                typo.problems().get(0).message());
        Rendered inList = render(
                withConf(Map.of("TaskPlugin", "task/affinity, task/bogus")),
                withControllerPlugins(TRIXIE_PLUGINS),
                "24.11.5");
        assertEquals(
                List.of("slurm_conf.TaskPlugin"),
                inList.problems().stream().map(p -> p.key()).toList(),
                "each name of a list");
        assertTrue(
                inList.problems().get(0).message().contains("task/bogus"),
                inList.problems().toString());
        assertTrue(
                slurmConf(render(
                                withConf(Map.of(
                                        "SwitchType",
                                        "switch/none",
                                        "SchedulerType",
                                        "sched/builtin",
                                        "MpiDefault",
                                        "pmix",
                                        "Epilog",
                                        "/etc/slurm/epilog.d/x",
                                        "JobSubmitPlugins",
                                        "lua")),
                                withControllerPlugins(TRIXIE_PLUGINS),
                                "24.11.5"))
                        .contains("SwitchType=switch/none"),
                "none means no plugin; names it has, paths and names without a kind are not checked");
        assertTrue(
                render(withConf(Map.of("SwitchType", "switch/bogus")), facts("n1"), "24.11.5")
                        .ok(),
                "a controller that reported no plugins is not checked");
        assertTrue(
                render(
                                withConf(Map.of("BurstBufferType", "burst_buffer/lua")),
                                withControllerPlugins(TRIXIE_PLUGINS),
                                "24.11.5")
                        .ok(),
                "a kind the controller has no plugin of is not known to be a plugin name");
        List<String> withGres = new java.util.ArrayList<>(TRIXIE_PLUGINS);
        withGres.add("gres_gpu");
        assertTrue(
                render(
                                withConf(Map.of("AccountingStorageTRES", "gres/gpu,gres/fpga")),
                                withControllerPlugins(withGres),
                                "24.11.5")
                        .ok(),
                "a resource's name is not a plugin's, though gres plugins exist");
        assertTrue(
                render(
                                withConf(Map.of(
                                        "PluginDir",
                                        "/usr/lib/x86_64-linux-gnu/slurm-wlm:/opt/slurm/plugins",
                                        "SwitchType",
                                        "switch/site")),
                                withControllerPlugins(TRIXIE_PLUGINS),
                                "24.11.5")
                        .ok(),
                "a site's own plugin folders are its own");
        Rendered cased = render(
                withConf(Map.of("SchedulerType", "Sched/Backfill")), withControllerPlugins(TRIXIE_PLUGINS), "24.11.5");
        assertEquals(1, cased.problems().size(), "Slurm looks for Sched_Backfill.so: " + cased.problems());
        assertTrue(
                cased.problems().get(0).message().contains("no Sched_Backfill.so")
                        && cased.problems().get(0).message().contains("Did you mean sched/backfill?"),
                cased.problems().get(0).message());
    }

    /**
     * With containers, slurm.conf's Prolog is slurmlet's; a site's own Prolog is named in a comment
     * its prolog reads, and runs after it. Without containers it is the site's line, as any other.
     */
    @ParameterizedTest
    @ValueSource(strings = {"22.05.8", "24.11.5", "26.05.5"})
    void aSitesPrologRunsFromSlurmletsWhereContainersTakeSlurmConfsProlog(String version) {
        SlurmSettings s = new SlurmSettings(
                true,
                "lab",
                "ctl0",
                List.of("g1"),
                false,
                List.of("g1"),
                "gpu",
                null,
                "local",
                true,
                null,
                Map.of("prolog", "/etc/slurm/prolog.d/*,/usr/local/sbin/site-prolog", "KillWait", "60"));
        String withPyxis = slurmConf(SlurmConfig.render(new RenderInput(
                s, facts("g1"), SlurmVersion.parse(version).orElseThrow(), Layout.DEBIAN, java.util.Set.of(), true)));
        assertTrue(withPyxis.contains("\nProlog=/usr/local/lib/slurmlet/prolog\n"), withPyxis);
        assertTrue(
                withPyxis.contains(
                        "\n# " + Slurm2205.SITE_PROLOG + "/etc/slurm/prolog.d/*,/usr/local/sbin/site-prolog\n"),
                withPyxis);
        assertEquals(
                1,
                withPyxis
                        .lines()
                        .filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("prolog="))
                        .count(),
                withPyxis);
        assertTrue(withPyxis.contains("\nKillWait=60\n"), "the site's other lines stay");
        String without = slurmConf(SlurmConfig.render(new RenderInput(
                s, facts("g1"), SlurmVersion.parse(version).orElseThrow(), Layout.DEBIAN, java.util.Set.of(), false)));
        assertTrue(without.contains("\nprolog=/etc/slurm/prolog.d/*,/usr/local/sbin/site-prolog\n"), without);
        assertFalse(without.contains(Slurm2205.SITE_PROLOG), without);
    }
}
