package io.slurmlet.model.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.NodeFacts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A plan's sections as they cross the agents' channel: each kind of storage named, read back as sent. */
class NodePlanJsonTest {

    static NodePlan with(StoragePlan storage, boolean pam) {
        return NodePlan.of("n1", Set.of(Role.COMPUTE))
                .withPackages(List.of("slurmd"))
                .withSlurm(new SlurmPlan(
                        List.of(
                                ManagedFile.config("/etc/slurm/slurm.conf", "ClusterName=lab\n"),
                                new ManagedFile(
                                        "/etc/slurm/slurmdbd.conf", "StoragePass=x\n", "0600", "slurm", "slurm", true)),
                        List.of("slurmd")))
                .withNodeStates(Map.of("n1", NodeWish.RESUME, "n2", NodeWish.PLATFORMS, "n3", NodeWish.RECLAIM))
                .withStorage(storage)
                .withPam(pam ? PamPlan.ADOPT : PamPlan.OFF);
    }

    @Test
    void everyKindOfStorageAndThePamDecisionReadBackAsSent() throws Exception {
        for (StoragePlan storage : List.of(
                StoragePlan.NONE,
                new StoragePlan.Mount("/shared", "n0:/shared", true),
                new StoragePlan.Export("/shared", List.of("n0", "n1")),
                new StoragePlan.Check("/lustre"))) {
            NodePlan plan = with(storage, true);
            String json = SettingsJson.STRICT.writeValueAsString(plan);
            assertEquals(plan, SettingsJson.STRICT.readValue(json, NodePlan.class), json);
        }
        String json =
                SettingsJson.STRICT.writeValueAsString(with(new StoragePlan.Export("/shared", List.of("n0")), true));
        assertTrue(json.contains("\"storage\":{\"kind\":\"export\",\"path\":\"/shared\",\"clients\":[\"n0\"]}"), json);
        assertTrue(json.contains("\"pam\":{\"adopt\":true}"), json);
    }

    @Test
    void aPlanWithoutStorageHasNoneButOneWithoutThePamDecisionIsAnOlderLeadersAndRefused() throws Exception {
        NodePlan plan = SettingsJson.STRICT.readValue(
                "{\"format\": 2, \"node\": \"n1\", \"pam_adopt\": false}", NodePlan.class);
        assertEquals(StoragePlan.NONE, plan.storage());
        assertFalse(plan.pam().adopt());
        assertEquals(UsersPlan.LEAVE, plan.users());
        Exception e = assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue("{\"node\": \"n1\", \"users\": []}", NodePlan.class));
        assertTrue(String.valueOf(e.getMessage()).contains("upgrade slurmlet on the leader"), e.getMessage());
    }

    @Test
    void theFactsAPlanWasMadeFromReadBackAsSentAndAFormat2PlanWasMadeFromNone() throws Exception {
        NodeFacts facts = NodeFacts.builder("n1")
                .cpus(8)
                .sockets(1)
                .coresPerSocket(4)
                .threadsPerCore(2)
                .memoryMiB(32_000)
                .gpus(List.of(new NodeFacts.Gpus("NVIDIA H100", 4)))
                .os("debian 13")
                .slurmVersion("24.11.5")
                .build()
                .withSlurmctldState(42 << 8);
        NodePlan plan = with(StoragePlan.NONE, false).madeFrom(facts);
        String json = SettingsJson.STRICT.writeValueAsString(plan);
        assertTrue(json.contains("\"planned_from\":{\"name\":\"n1\""), json);
        NodePlan back = SettingsJson.STRICT.readValue(json, NodePlan.class);
        assertEquals(plan, back, json);
        assertEquals(Optional.of(facts), back.plannedFrom());
        NodePlan older = SettingsJson.STRICT.readValue(
                "{\"format\": 2, \"node\": \"n1\", \"pam_adopt\": false}", NodePlan.class);
        assertEquals(Optional.empty(), older.plannedFrom());
    }

    @Test
    void aPlanFromAnOlderLeaderIsNeverTakenForOneWithoutStorage() {
        Exception e = assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(
                        "{\"node\": \"n1\", \"pam_adopt\": false, \"shared\": {\"path\": \"/shared\", \"nfs\": \"\", \"server\": \"n0\"}}",
                        NodePlan.class));
        assertTrue(String.valueOf(e.getMessage()).contains("upgrade slurmlet on the leader"), e.getMessage());
    }

    @Test
    void anUnknownKindOfStorageIsRefused() {
        assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(
                        "{\"format\": 2, \"node\": \"n1\", \"pam_adopt\": false, \"storage\": {\"kind\": \"tape\", \"path\": \"/x\"}}",
                        NodePlan.class));
    }

    @Test
    void fileModesOwnersSecretsAndNodeWishesReadBackAsSentAndASecretIsNeverPrinted() throws Exception {
        NodePlan plan = with(StoragePlan.NONE, false);
        String json = SettingsJson.STRICT.writeValueAsString(plan);
        assertEquals(plan, SettingsJson.STRICT.readValue(json, NodePlan.class), json);
        assertTrue(json.contains("\"format\":6"), json);
        assertFalse(json.contains("planned_from"), "left out where the leader planned without facts: " + json);
        assertTrue(
                json.contains(
                        "{\"path\":\"/etc/slurm/slurmdbd.conf\",\"content\":\"StoragePass=x\\n\",\"mode\":\"0600\","
                                + "\"owner\":\"slurm\",\"group\":\"slurm\",\"secret\":true}"),
                json);
        assertTrue(
                json.contains(
                        "\"node_states\":{\"n1\":{\"state\":\"resume\"},\"n2\":{\"state\":\"drain\",\"reason\":"
                                + "\"slurmlet: not lent\"},\"n3\":{\"state\":\"drain\",\"reason\":\"slurmlet: reclaiming for the platform\"}}"),
                json);
        assertTrue(plan.reclaiming());
        assertEquals("rw-------", plan.slurm().files().get(1).permissions());
        assertFalse(
                plan.slurm().files().get(1).toString().contains("StoragePass"),
                plan.slurm().files().get(1).toString());
        assertFalse(plan.toString().contains("StoragePass"), plan.toString());
    }

    @Test
    void aPlanOfALaterFormatIsRefusedWithTheUpgradeThatReadsIt() {
        Exception e = assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(
                        "{\"format\": 9, \"node\": \"n1\", \"pam_adopt\": false}", NodePlan.class));
        assertTrue(
                String.valueOf(e.getMessage())
                        .contains("this plan is of format 9, which this agent's slurmlet (format 8) cannot read: "
                                + "upgrade slurmlet on this machine"),
                e.getMessage());
        Exception older = assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(
                        "{\"node\": \"n1\", \"pam_adopt\": false, \"files\": {}}", NodePlan.class));
        assertTrue(String.valueOf(older.getMessage()).contains("upgrade slurmlet on the leader"), older.getMessage());
    }

    @Test
    void aDrainThatIsNotSlurmletsOrAFileThatIsNotPlainIsNoPlan() {
        assertThrows(IllegalArgumentException.class, () -> new NodeWish.Drain("maintenance"));
        assertThrows(IllegalArgumentException.class, () -> new NodeWish.Drain("slurmlet: x\nState=DOWN"));
        for (String path : List.of("etc/slurm.conf", "/etc/../shadow", "/etc/slurm/", "/etc/a b", "/etc/x\n")) {
            assertThrows(IllegalArgumentException.class, () -> ManagedFile.config(path, ""), path);
        }
        assertThrows(IllegalArgumentException.class, () -> new ManagedFile("/etc/x", "", "644", "root", "root", false));
        assertThrows(
                IllegalArgumentException.class, () -> new ManagedFile("/etc/x", "", "0644", "root:x", "root", false));
    }

    @Test
    void aFormat3PlansFlatFieldsReadAsTheSectionsTheyAre() throws Exception {
        NodePlan plan = SettingsJson.STRICT.readValue("""
                {"format": 3, "node": "n1", "roles": ["COMPUTE"], "slurm_files": [{"path": "/etc/slurm/slurm.conf",
                 "content": "ClusterName=lab\\n", "mode": "0644", "owner": "root", "group": "root", "secret": false}],
                 "services": ["munge", "slurmd"], "users": [], "home_root": "/shared/home", "pam_adopt": true,
                 "storage": {"kind": "mount", "path": "/shared", "source": "n0:/shared", "ours": true}}""", NodePlan.class);
        assertEquals(
                new SlurmPlan(
                        List.of(ManagedFile.config("/etc/slurm/slurm.conf", "ClusterName=lab\n")),
                        List.of("munge", "slurmd")),
                plan.slurm());
        assertEquals(new UsersPlan.Keep(List.of(), "/shared/home"), plan.users());
        assertEquals(PamPlan.ADOPT, plan.pam());
        assertEquals(new StoragePlan.Mount("/shared", "n0:/shared", true), plan.storage());
        NodePlan leaves = SettingsJson.STRICT.readValue(
                "{\"format\": 3, \"node\": \"n1\", \"pam_adopt\": false, \"users\": null}", NodePlan.class);
        assertEquals(UsersPlan.LEAVE, leaves.users());
    }

    @Test
    void aFormat4PlanWithoutASectionOrWithAnOlderFormatsFieldIsNotApplied() throws Exception {
        String whole = SettingsJson.STRICT.writeValueAsString(with(StoragePlan.NONE, true));
        assertTrue(whole.contains("\"linux_users\":{\"kind\":\"leave\"}"), whole);
        for (String section : List.of("slurm", "pam", "linux_users", "storage")) {
            var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SettingsJson.STRICT.readTree(whole);
            tree.remove(section);
            Exception e =
                    assertThrows(Exception.class, () -> SettingsJson.STRICT.treeToValue(tree, NodePlan.class), section);
            assertTrue(String.valueOf(e.getMessage()).contains("no " + section), e.getMessage());
        }
        var mixed = (com.fasterxml.jackson.databind.node.ObjectNode) SettingsJson.STRICT.readTree(whole);
        mixed.put("pam_adopt", false);
        Exception e = assertThrows(Exception.class, () -> SettingsJson.STRICT.treeToValue(mixed, NodePlan.class));
        assertTrue(String.valueOf(e.getMessage()).contains("pam_adopt"), e.getMessage());
        Exception format3 = assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(
                        "{\"format\": 3, \"node\": \"n1\", \"pam\": {\"adopt\": true}}", NodePlan.class));
        assertTrue(
                String.valueOf(format3.getMessage()).contains("has pam_adopt and no slurm, linux_users or pam section"),
                format3.getMessage());
    }

    @Test
    void theDaemonsAPlanRetiresReadBackAsSentAndAFormat4PlanRetiresNone() throws Exception {
        NodePlan plan =
                NodePlan.of("n0", java.util.Set.of()).withSlurm(SlurmPlan.retiring(List.of("slurmctld", "slurmd")));
        String json = SettingsJson.STRICT.writeValueAsString(plan);
        assertTrue(
                json.contains("\"slurm\":{\"files\":[],\"services\":[],\"retired\":[\"slurmctld\",\"slurmd\"]}"), json);
        assertTrue(json.contains("\"format\":6"), json);
        assertEquals(
                List.of("slurmctld", "slurmd"),
                SettingsJson.STRICT.readValue(json, NodePlan.class).slurm().retired());
        String noContainers = json.replace(
                ",\"containers\":{\"install\":false,\"artifacts\":[],\"shared_path\":\"\",\"gpus\":false}", "");
        assertTrue(assertThrows(Exception.class, () -> SettingsJson.STRICT.readValue(noContainers, NodePlan.class))
                .getMessage()
                .contains("no containers"));
        assertEquals(
                ContainersPlan.NONE,
                SettingsJson.STRICT
                        .readValue(noContainers.replace("\"format\":6", "\"format\":5"), NodePlan.class)
                        .containers());
        String format4 = noContainers
                .replace("\"format\":6", "\"format\":4")
                .replace(",\"retired\":[\"slurmctld\",\"slurmd\"]", "");
        assertEquals(
                SlurmPlan.NONE,
                SettingsJson.STRICT.readValue(format4, NodePlan.class).slurm());
        // What crosses from the leader names Slurm's daemons only, and none the plan also runs.
        for (String bad : List.of("[\"sshd\"]", "[\"slurmd\\nx\"]")) {
            assertThrows(
                    Exception.class,
                    () -> SettingsJson.STRICT.readValue(
                            json.replace("[\"slurmctld\",\"slurmd\"]", bad), NodePlan.class),
                    bad);
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> new SlurmPlan(List.of(), List.of("munge", "slurmd"), List.of("slurmd")));
    }

    @Test
    void aContainersSectionReadsBackAsSentAndNothingInItCanEndAnFstabFieldOrNameAFolder() throws Exception {
        Artifact enroot = new Artifact(
                "enroot",
                "4.1.2",
                "amd64",
                "deb",
                "enroot_4.1.2-1_amd64.deb",
                "0".repeat(64),
                "http://10.77.0.2:8080/a/enroot_4.1.2-1_amd64.deb");
        NodePlan plan = NodePlan.of("n1", java.util.Set.of(Role.COMPUTE))
                .withContainers(new ContainersPlan(true, List.of(enroot), "/shared", false));
        String json = SettingsJson.STRICT.writeValueAsString(plan);
        assertEquals(plan, SettingsJson.STRICT.readValue(json, NodePlan.class), json);
        for (String bad : List.of("\"/shared x\"", "\"/shared\\nx\"", "\"shared\"", "\"/a/../b c\"")) {
            assertThrows(
                    Exception.class,
                    () -> SettingsJson.STRICT.readValue(json.replace("\"/shared\"", bad), NodePlan.class),
                    bad);
        }
        for (String[] bad : List.of(
                new String[] {"enroot_4.1.2-1_amd64.deb\"", "../x.deb\""},
                new String[] {"0".repeat(64), "0".repeat(63) + "g"},
                new String[] {"http://10.77.0.2:8080/a/", "file:///a/"},
                new String[] {"\"deb\"", "\"tar\""})) {
            assertThrows(
                    Exception.class,
                    () -> SettingsJson.STRICT.readValue(json.replace(bad[0], bad[1]), NodePlan.class),
                    bad[1]);
        }
        assertThrows(IllegalArgumentException.class, () -> new ContainersPlan(false, List.of(enroot), "", false));
    }

    /**
     * Slurm's own keys cross to their machine in the plan's JSON and read back equal; only a plan
     * that carries them is of format 8 (an agent of format 7 refuses it and says to upgrade, rather
     * than stay on munge beside a cluster that left it), a format 7 plan that says them is refused,
     * and neither the plan's toString nor the keys' names a key.
     */
    @Test
    void slurmKeysReadBackAsSentOnlyInAFormat8Plan() throws Exception {
        SlurmJwks jwks = SlurmJwks.first("slurmlet-1").withNewKey("slurmlet-2");
        NodePlan plain = NodePlan.of("n1", java.util.Set.of(Role.COMPUTE));
        NodePlan plan = plain.withSlurmKeys(java.util.Optional.of(new SlurmAuthKeys(2, jwks)));
        String json = SettingsJson.STRICT.writeValueAsString(plan);
        assertTrue(json.contains("\"format\":8"), json);
        assertTrue(json.contains("\"slurm_jwks\":{\"generation\":2,\"jwks\":\"{\\\"keys\\\""), json);
        NodePlan read = SettingsJson.STRICT.readValue(json, NodePlan.class);
        assertEquals(plan, read, json);
        assertEquals(jwks, read.slurmKeys().orElseThrow().jwks());
        assertEquals(2, read.slurmKeys().orElseThrow().generation());

        String without = SettingsJson.STRICT.writeValueAsString(plain);
        assertTrue(without.contains("\"format\":6") && !without.contains("slurm_jwks"), without);

        Exception early = assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(json.replace("\"format\":8", "\"format\":7"), NodePlan.class));
        assertTrue(String.valueOf(early.getMessage()).contains("slurm_jwks (a key of format 8)"), early.getMessage());
        assertThrows(
                Exception.class,
                () -> SettingsJson.STRICT.readValue(
                        json.replace("\"generation\":2", "\"generation\":0"), NodePlan.class));

        String k = java.util.Base64.getEncoder()
                .encodeToString(java.util.Base64.getDecoder()
                        .decode(SettingsJson.STRICT
                                .readTree(jwks.text())
                                .path("keys")
                                .get(0)
                                .path("k")
                                .asText()));
        assertFalse(plan.toString().contains(k), plan.toString());
        assertTrue(plan.toString().contains("slurmlet-1"), plan.toString());
    }

    /**
     * An artifact's size crosses to the machine, which takes no byte more; a plan with none is
     * written as format 6, which an agent of format 6 (that would refuse the key) reads, and an
     * older leader's plan, without sizes, is read with none.
     */
    @Test
    void anArtifactsSizeReadsBackAsSentAndAPlanWithoutSizesStaysFormat6() throws Exception {
        Artifact sized = new Artifact(
                "enroot",
                "4.1.2",
                "amd64",
                "deb",
                "enroot_4.1.2-1_amd64.deb",
                "0".repeat(64),
                "http://10.77.0.2:8080/a/enroot_4.1.2-1_amd64.deb",
                98_132L);
        NodePlan plan = NodePlan.of("n1", java.util.Set.of(Role.COMPUTE))
                .withContainers(new ContainersPlan(true, List.of(sized), "", false));
        String json = SettingsJson.STRICT.writeValueAsString(plan);
        assertTrue(json.contains("\"format\":7"), json);
        assertTrue(
                json.contains("\"url\":\"http://10.77.0.2:8080/a/enroot_4.1.2-1_amd64.deb\",\"bytes\":98132}"), json);
        assertEquals(plan, SettingsJson.STRICT.readValue(json, NodePlan.class), json);

        Artifact unsized = new Artifact(
                "enroot",
                "4.1.2",
                "amd64",
                "deb",
                "enroot_4.1.2-1_amd64.deb",
                "0".repeat(64),
                "http://10.77.0.2:8080/a/enroot_4.1.2-1_amd64.deb");
        String older = SettingsJson.STRICT.writeValueAsString(
                plan.withContainers(new ContainersPlan(true, List.of(unsized), "", false)));
        assertTrue(older.contains("\"format\":6") && !older.contains("bytes"), older);
        assertEquals(
                null,
                SettingsJson.STRICT
                        .readValue(older, NodePlan.class)
                        .containers()
                        .artifacts()
                        .get(0)
                        .bytes());

        for (String bad : List.of("0", "-1", "\"98132\"")) {
            assertThrows(
                    Exception.class,
                    () -> SettingsJson.STRICT.readValue(json.replace("98132", bad), NodePlan.class),
                    bad);
        }
        IllegalArgumentException zero = assertThrows(
                IllegalArgumentException.class,
                () -> new Artifact(
                        "enroot",
                        "4.1.2",
                        "amd64",
                        "deb",
                        "enroot_4.1.2-1_amd64.deb",
                        "0".repeat(64),
                        "http://m/enroot_4.1.2-1_amd64.deb",
                        0L));
        assertEquals(
                "artifact enroot: bytes is 0, not a file's size: give the size of enroot_4.1.2-1_amd64.deb in bytes, as stat -c %s "
                        + "prints it",
                zero.getMessage());
    }
}
