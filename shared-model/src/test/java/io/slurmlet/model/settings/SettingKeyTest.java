package io.slurmlet.model.settings;

import static io.slurmlet.model.settings.SettingsBuilder.settings;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reading {@code KEY=VALUE} as {@code ctl slurm set} takes it, and showing a value so it reads back. */
class SettingKeyTest {

    @Test
    void booleansTakeTheUsualWordsForTrue() {
        for (String word : List.of("true", "yes", "on", "1", "TRUE", "Yes", "On")) {
            assertEquals(Boolean.TRUE, SettingKey.ENABLED.parse(word), word);
        }
    }

    @Test
    void booleansTakeTheUsualWordsForFalse() {
        for (String word : List.of("false", "no", "off", "0", "FALSE", "No", "OFF")) {
            assertEquals(Boolean.FALSE, SettingKey.CONTAINERS.parse(word), word);
        }
    }

    @Test
    void booleanRefusesOtherWordsSayingWhatToWrite() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SettingKey.ALL_NODES.parse("maybe"));
        assertEquals("all_nodes=maybe is not true or false: write all_nodes=true or all_nodes=false", e.getMessage());

        IllegalArgumentException nested = assertThrows(
                IllegalArgumentException.class, () -> SettingKey.EXPERIMENTAL_ENABLE_ASYNC_REPLY.parse("2"));
        assertEquals(
                "experimental.enable_async_reply=2 is not true or false: write experimental.enable_async_reply=true "
                        + "or experimental.enable_async_reply=false",
                nested.getMessage());
    }

    @Test
    void textIsTakenAsTyped() {
        assertEquals("ctl1", SettingKey.CONTROLLER.parse("ctl1"));
        assertEquals("nfs1:/export/shared", SettingKey.SHARED_NFS.parse("nfs1:/export/shared"));
    }

    @Test
    void listsSplitOnCommasAndDropTheSpacesAround() {
        assertAll(
                () -> assertEquals(List.of("gpu1", "gpu2", "gpu3"), SettingKey.NODES.parse("gpu1, gpu2 ,gpu3")),
                () -> assertEquals(List.of("gpu1"), SettingKey.LENT.parse("gpu1")),
                () -> assertEquals(List.of("gpu1", "gpu2"), SettingKey.LENT.parse(" gpu1,gpu2 ")));
    }

    @Test
    void listRefusesAnEmptyItem() {
        for (String raw : List.of("gpu1,,gpu2", "gpu1,", ",gpu1", "gpu1, ,gpu2", " ")) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> SettingKey.NODES.parse(raw));
            assertEquals(
                    "nodes=" + raw + " has an empty item: separate names with single commas, as nodes=n1,n2",
                    e.getMessage(),
                    raw);
        }
    }

    @Test
    void emptyValueClearsEveryKey() {
        for (SettingKey key : SettingKey.values()) {
            assertNull(key.parse(""), key.key());
        }
    }

    @Test
    void everyKeyIsFoundByItsName() {
        List<String> names = List.of(
                "enabled",
                "cluster_name",
                "controller",
                "nodes",
                "all_nodes",
                "lent",
                "partition",
                "shared.path",
                "shared.nfs",
                "shared.server",
                "users",
                "containers",
                "experimental.enable_async_reply",
                "auth",
                "slurm_conf");

        assertEquals(
                names, Arrays.stream(SettingKey.values()).map(SettingKey::key).toList());
        for (SettingKey key : SettingKey.values()) {
            assertEquals(Optional.of(key), SettingKey.of(key.key()));
        }
        assertEquals(String.join(", ", names) + ".NAME", SettingKey.all());
    }

    @Test
    void unknownKeysAreNotFound() {
        for (String name : List.of("foo", "shared", "experimental", "Enabled", "shared.foo", "")) {
            assertEquals(Optional.empty(), SettingKey.of(name), name);
        }
    }

    @Test
    void everyKeyHasTheKindOfItsValue() {
        SlurmSettings s = settings().build();
        for (SettingKey key : SettingKey.values()) {
            Object value = key.valueIn(s);
            Class<?> expected = switch (key.kind()) {
                case BOOLEAN -> Boolean.class;
                case TEXT -> String.class;
                case LIST -> List.class;
                case MAP -> java.util.Map.class;
            };
            assertTrue(expected.isInstance(value), key.key() + " holds " + value);
        }
    }

    @Test
    void formattedValueReadsBackAsTheSameValue() {
        SlurmSettings s = settings()
                .clusterName("lab")
                .controller("ctl1")
                .nodes("gpu1", "gpu2", "gpu3")
                .allNodes(true)
                .lent("gpu1", "gpu3")
                .partition("train")
                .shared("/shared", "nfs1:/export/shared", "gpu2")
                .users("slurmlet")
                .containers(true)
                .asyncReply(true)
                .build();

        for (SettingKey key : SettingKey.values()) {
            if (key.kind() == SettingKey.Kind.MAP) {
                continue; // typed one entry at a time, as slurm_conf.NAME=VALUE
            }
            assertEquals(key.valueIn(s), key.parse(key.format(s)), key.key() + "=" + key.format(s));
        }
    }

    @Test
    void formatShowsEachKindAsItIsTyped() {
        SlurmSettings s = settings().nodes("gpu1", "gpu2").build();
        assertAll(
                () -> assertEquals("true", SettingKey.ENABLED.format(s)),
                () -> assertEquals("false", SettingKey.CONTAINERS.format(s)),
                () -> assertEquals("gpu1,gpu2", SettingKey.NODES.format(s)),
                () -> assertEquals("slurmlet", SettingKey.CLUSTER_NAME.format(s)),
                () -> assertEquals("", SettingKey.SHARED_PATH.format(s)),
                () -> assertEquals("", SettingKey.LENT.format(settings().lent().build())));
    }

    @Test
    void pathIsTheKeySplitAtItsDots() {
        assertAll(
                () -> assertEquals(List.of("enabled"), SettingKey.ENABLED.path()),
                () -> assertEquals(List.of("cluster_name"), SettingKey.CLUSTER_NAME.path()),
                () -> assertEquals(List.of("shared", "path"), SettingKey.SHARED_PATH.path()),
                () -> assertEquals(List.of("shared", "server"), SettingKey.SHARED_SERVER.path()),
                () -> assertEquals(
                        List.of("experimental", "enable_async_reply"),
                        SettingKey.EXPERIMENTAL_ENABLE_ASYNC_REPLY.path()));
    }

    @Test
    void rowsListEverySettingAndEachSlurmConfLineOnItsOwn() {
        SlurmSettings s = new SlurmSettings(
                true,
                null,
                "c",
                List.of("n1"),
                false,
                List.of(),
                null,
                null,
                null,
                false,
                null,
                java.util.Map.of("MaxJobCount", "50000", "KillWait", "60"));
        var rows = SettingKey.rows(s);
        assertEquals(
                List.of(
                        "enabled",
                        "cluster_name",
                        "controller",
                        "nodes",
                        "all_nodes",
                        "lent",
                        "partition",
                        "shared.path",
                        "shared.nfs",
                        "shared.server",
                        "users",
                        "containers",
                        "experimental.enable_async_reply",
                        "auth",
                        "slurm_conf.KillWait",
                        "slurm_conf.MaxJobCount"),
                List.copyOf(rows.keySet()));
        assertEquals("50000", rows.get("slurm_conf.MaxJobCount"));
        assertEquals(
                "enabled, cluster_name, controller, nodes, all_nodes, lent, partition, shared.path, shared.nfs, "
                        + "shared.server, users, containers, experimental.enable_async_reply, auth, slurm_conf.NAME",
                SettingKey.all());
    }
}
