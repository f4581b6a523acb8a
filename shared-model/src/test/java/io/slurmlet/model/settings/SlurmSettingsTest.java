package io.slurmlet.model.settings;

import static io.slurmlet.model.settings.SettingsBuilder.settings;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The settings' defaults, their immutability, and what the leader derives from them. */
class SlurmSettingsTest {

    @Test
    void freshSettingsAreOffWithNothingNamed() {
        SlurmSettings d = SlurmSettings.DEFAULTS;
        assertAll(
                () -> assertFalse(d.enabled()),
                () -> assertEquals("slurmlet", d.clusterName()),
                () -> assertEquals("", d.controller()),
                () -> assertEquals(List.of(), d.nodes()),
                () -> assertFalse(d.allNodes()),
                () -> assertEquals(List.of(), d.lent()),
                () -> assertEquals("gpu", d.partition()),
                () -> assertEquals(new SharedStorage("", "", ""), d.shared()),
                () -> assertEquals("", d.users()),
                () -> assertFalse(d.containers()),
                () -> assertEquals(new Experimental(false), d.experimental()));
    }

    @Test
    void emptyClusterNameAndPartitionTakeTheirDefaults() {
        SlurmSettings empty = settings().clusterName("").partition("").build();
        SlurmSettings nulls = settings().clusterName(null).partition(null).build();
        assertAll(
                () -> assertEquals("slurmlet", empty.clusterName()),
                () -> assertEquals("gpu", empty.partition()),
                () -> assertEquals("slurmlet", nulls.clusterName()),
                () -> assertEquals("gpu", nulls.partition()));
    }

    @Test
    void nullValuesBecomeEmpty() {
        SlurmSettings s = new SlurmSettings(true, null, null, null, false, null, null, null, null, false, null);
        assertAll(
                () -> assertEquals("", s.controller()),
                () -> assertEquals(List.of(), s.nodes()),
                () -> assertEquals(List.of(), s.lent()),
                () -> assertEquals(SharedStorage.NONE, s.shared()),
                () -> assertEquals("", s.users()),
                () -> assertEquals(Experimental.NONE, s.experimental()),
                () -> assertEquals(new SharedStorage("", "", ""), new SharedStorage(null, null, null)));
    }

    @Test
    void listsAreImmutableCopies() {
        List<String> nodes = new ArrayList<>(List.of("gpu1", "gpu2"));
        List<String> lent = new ArrayList<>(List.of("gpu1"));
        SlurmSettings s = new SlurmSettings(true, null, "ctl1", nodes, false, lent, null, null, null, false, null);

        nodes.add("gpu3");
        lent.clear();

        assertAll(
                () -> assertEquals(List.of("gpu1", "gpu2"), s.nodes()),
                () -> assertEquals(List.of("gpu1"), s.lent()),
                () -> assertThrows(
                        UnsupportedOperationException.class, () -> s.nodes().add("gpu4")),
                () -> assertThrows(
                        UnsupportedOperationException.class, () -> s.lent().remove(0)));
    }

    @Test
    void allNodesAddsEveryMissingNodeInOrder() {
        SlurmSettings s = settings().allNodes(true).nodes("gpu2").build();

        SlurmSettings with = s.withNodes(List.of("gpu1", "gpu2", "gpu3", "gpu1"));

        assertEquals(List.of("gpu2", "gpu1", "gpu3"), with.nodes());
        assertEquals(s.lent(), with.lent());
        assertEquals(s.controller(), with.controller());
    }

    @Test
    void withoutAllNodesTheNamedNodesStayAsTheyAre() {
        SlurmSettings s = settings().nodes("gpu2").lent("gpu2").build();

        assertSame(s, s.withNodes(List.of("gpu1", "gpu3")));
    }

    @Test
    void withLentReplacesOnlyTheLentNodes() {
        SlurmSettings s = settings().build();

        SlurmSettings with = s.withLent(List.of("gpu2"));

        assertEquals(List.of("gpu2"), with.lent());
        assertEquals(settings().lent("gpu2").build(), with);
    }

    @Test
    void aNodeIsLentWhenEnabledNamedAndLent() {
        SlurmSettings s = settings().nodes("gpu1", "gpu2").lent("gpu1").build();
        assertAll(
                () -> assertTrue(s.isLent("gpu1")),
                () -> assertFalse(s.isLent("gpu2"), "a node not in lent is the platform's"),
                () -> assertFalse(s.isLent("gpu9"), "an unknown node is never lent"),
                () -> assertFalse(settings().enabled(false).build().isLent("gpu1"), "disabled Slurm uses no node"),
                () -> assertFalse(
                        settings().nodes("gpu2").lent("gpu1").build().isLent("gpu1"),
                        "a lent node that runs no slurmd cannot be used"),
                () -> assertTrue(
                        settings().allNodes(true).nodes().lent("gpu7").build().isLent("gpu7"),
                        "with all_nodes every lent node runs slurmd"));
    }

    @Test
    void usersSlurmletMakesUsers() {
        assertTrue(settings().users("slurmlet").build().makesUsers());
        assertFalse(settings().users("").build().makesUsers());
    }

    @Test
    void lentNodesAreTheNodesIsLentAccepts() {
        SlurmSettings s = new SlurmSettings(
                true, null, "c", List.of("n1", "n2"), false, List.of("n2", "n9", "n1"), null, null, null, false, null);
        assertEquals(List.of("n2", "n1"), List.copyOf(s.lentNodes()));
        for (String n : List.of("n1", "n2", "n9", "c")) {
            assertEquals(s.isLent(n), s.lentNodes().contains(n), n);
        }
        SlurmSettings all =
                new SlurmSettings(true, null, "c", List.of(), true, List.of("x"), null, null, null, false, null);
        assertEquals(List.of("x"), List.copyOf(all.lentNodes()));
        SlurmSettings off =
                new SlurmSettings(false, null, "c", List.of("n1"), false, List.of("n1"), null, null, null, false, null);
        assertTrue(off.lentNodes().isEmpty());
    }
}
