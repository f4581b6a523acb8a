package io.slurmlet.model.plan;

import io.slurmlet.model.api.SettingsJson;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A plan's sections as they cross the agents' channel: each kind of storage named, read back as sent. */
class NodePlanJsonTest {

    static NodePlan with(StoragePlan storage, boolean pam) {
        return new NodePlan("n1", Set.of(Role.COMPUTE), List.of("slurmd"), Optional.empty(), Map.of(), List.of("slurmd"), List.of(),
                Map.of(), null, "/home", storage, pam);
    }

    @Test
    void everyKindOfStorageAndThePamDecisionReadBackAsSent() throws Exception {
        for (StoragePlan storage : List.of(StoragePlan.NONE, new StoragePlan.Mount("/shared", "n0:/shared", true),
                new StoragePlan.Export("/shared", List.of("n0", "n1")), new StoragePlan.Check("/lustre"))) {
            NodePlan plan = with(storage, true);
            String json = SettingsJson.STRICT.writeValueAsString(plan);
            assertEquals(plan, SettingsJson.STRICT.readValue(json, NodePlan.class), json);
        }
        String json = SettingsJson.STRICT.writeValueAsString(with(new StoragePlan.Export("/shared", List.of("n0")), true));
        assertTrue(json.contains("\"storage\":{\"kind\":\"export\",\"path\":\"/shared\",\"clients\":[\"n0\"]}"), json);
        assertTrue(json.contains("\"pam_adopt\":true"), json);
    }

    @Test
    void aPlanWithoutStorageHasNoneButOneWithoutThePamDecisionIsAnOlderLeadersAndRefused() throws Exception {
        NodePlan plan = SettingsJson.STRICT.readValue("{\"node\": \"n1\", \"pam_adopt\": false}", NodePlan.class);
        assertEquals(StoragePlan.NONE, plan.storage());
        assertFalse(plan.pamAdopt());
        Exception e = assertThrows(Exception.class, () -> SettingsJson.STRICT.readValue("{\"node\": \"n1\", \"users\": []}", NodePlan.class));
        assertTrue(String.valueOf(e.getMessage()).contains("upgrade slurmlet on the leader"), e.getMessage());
    }

    @Test
    void aPlanFromAnOlderLeaderIsNeverTakenForOneWithoutStorage() {
        Exception e = assertThrows(Exception.class, () -> SettingsJson.STRICT.readValue(
                "{\"node\": \"n1\", \"pam_adopt\": false, \"shared\": {\"path\": \"/shared\", \"nfs\": \"\", \"server\": \"n0\"}}", NodePlan.class));
        assertTrue(String.valueOf(e.getMessage()).contains("upgrade slurmlet on the leader"), e.getMessage());
    }

    @Test
    void anUnknownKindOfStorageIsRefused() {
        assertThrows(Exception.class, () -> SettingsJson.STRICT.readValue(
                "{\"node\": \"n1\", \"pam_adopt\": false, \"storage\": {\"kind\": \"tape\", \"path\": \"/x\"}}", NodePlan.class));
    }
}
