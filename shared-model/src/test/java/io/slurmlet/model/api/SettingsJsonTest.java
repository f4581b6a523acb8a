package io.slurmlet.model.api;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.slurmlet.model.api.SettingsJson.BadJson;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.SettingKey;
import io.slurmlet.model.settings.SharedStorage;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The one strict reading of settings JSON, its messages, RFC 7396 merge patches, and the JSON names. */
class SettingsJsonTest {

    private static final String TOP_LEVEL_KEYS =
            "all_nodes, auth, cluster_name, containers, controller, enabled, experimental, lent, nodes, partition, shared, "
                    + "slurm_conf, users";

    private static final SlurmSettings FULL = new SlurmSettings(
            true,
            "lab",
            "ctl1",
            List.of("gpu1", "gpu2"),
            true,
            List.of("gpu2"),
            "train",
            new SharedStorage("/shared", "nfs1:/export/shared", ""),
            "slurmlet",
            true,
            new Experimental(true),
            null,
            "slurm");

    private static final String FULL_JSON = """
            {
              "enabled": true,
              "cluster_name": "lab",
              "controller": "ctl1",
              "nodes": ["gpu1", "gpu2"],
              "all_nodes": true,
              "lent": ["gpu2"],
              "partition": "train",
              "shared": {"path": "/shared", "nfs": "nfs1:/export/shared", "server": ""},
              "users": "slurmlet",
              "containers": true,
              "experimental": {"enable_async_reply": true},
              "auth": "slurm"
            }
            """;

    // reading settings

    @Test
    void readsEveryKeyByItsJsonName() {
        assertEquals(FULL, read(FULL_JSON));
    }

    @Test
    void missingOrNullKeysTakeTheirDefaults() {
        assertEquals(SlurmSettings.DEFAULTS, read("{}"));
        assertEquals(SlurmSettings.DEFAULTS, read("""
                {"enabled": null, "cluster_name": null, "nodes": null, "shared": null, "containers": null,
                 "experimental": {}}"""));
    }

    @Test
    void readsUtf8Text() {
        assertEquals("ü-lab", read("{\"cluster_name\": \"ü-lab\"}").clusterName());
    }

    @Test
    void writtenSettingsReadBackTheSame() throws JsonProcessingException {
        assertEquals(
                FULL, SettingsJson.toSettings(SettingsJson.readObject(SettingsJson.STRICT.writeValueAsBytes(FULL))));
    }

    @Test
    void writesTheJsonNamesInTheRecordsOrder() throws JsonProcessingException {
        assertEquals(
                "{\"enabled\":false,\"cluster_name\":\"slurmlet\",\"controller\":\"\",\"nodes\":[],"
                        + "\"all_nodes\":false,\"lent\":[],\"partition\":\"gpu\","
                        + "\"shared\":{\"path\":\"\",\"nfs\":\"\",\"server\":\"\"},\"users\":\"\",\"containers\":false,"
                        + "\"experimental\":{\"enable_async_reply\":false},\"slurm_conf\":{}}",
                SettingsJson.STRICT.writeValueAsString(SlurmSettings.DEFAULTS));
    }

    @Test
    void everySettingKeyNamesItsJsonMember() {
        JsonNode tree = SettingsJson.STRICT.valueToTree(FULL);
        for (SettingKey key : SettingKey.values()) {
            JsonNode node = tree;
            for (String name : key.path()) {
                node = node.path(name);
            }
            assertFalse(node.isMissingNode(), key.key());
            assertEquals(key.valueIn(FULL), SettingsJson.STRICT.convertValue(node, Object.class), key.key());
        }
    }

    // unknown keys and wrong types

    @Test
    void unknownKeyIsNamedWithTheKeysThere() {
        assertEquals("unknown key \"foo\": the keys there are " + TOP_LEVEL_KEYS, refusal("{\"foo\": 1}"));
    }

    @Test
    void unknownNestedKeyIsNamedWithItsParent() {
        assertAll(
                () -> assertEquals(
                        "unknown key \"shared.foo\": the keys there are nfs, path, server",
                        refusal("{\"shared\": {\"path\": \"/shared\", \"foo\": 1}}")),
                () -> assertEquals(
                        "unknown key \"experimental.foo\": the keys there are enable_async_reply",
                        refusal("{\"experimental\": {\"foo\": true}}")));
    }

    @Test
    void wrongTypeNamesTheKeyAndWhatItTakes() {
        assertAll(
                () -> assertEquals(
                        "nodes has the wrong type: it takes a list of strings, as [\"n1\", \"n2\"]",
                        refusal("{\"nodes\": \"gpu1,gpu2\"}")),
                () -> assertEquals(
                        "enabled has the wrong type: it takes true or false", refusal("{\"enabled\": \"true\"}")),
                () -> assertEquals("enabled has the wrong type: it takes true or false", refusal("{\"enabled\": 1}")),
                () -> assertEquals(
                        "cluster_name has the wrong type: it takes a string", refusal("{\"cluster_name\": 5}")),
                () -> assertEquals(
                        "cluster_name has the wrong type: it takes a string", refusal("{\"cluster_name\": true}")),
                () -> assertEquals(
                        "shared has the wrong type: it takes an object", refusal("{\"shared\": [\"/shared\"]}")),
                () -> assertEquals(
                        "shared.path has the wrong type: it takes a string", refusal("{\"shared\": {\"path\": 1.5}}")),
                () -> assertEquals(
                        "experimental.enable_async_reply has the wrong type: it takes true or false",
                        refusal("{\"experimental\": {\"enable_async_reply\": \"yes\"}}")));
    }

    @Test
    void wrongListItemIsNamedByItsIndex() {
        assertAll(
                () -> assertEquals(
                        "nodes[1] has the wrong type: it takes a string", refusal("{\"nodes\": [\"gpu1\", 2]}")),
                () -> assertEquals("lent[0] has the wrong type: it takes a string", refusal("{\"lent\": [null]}")),
                () -> assertEquals(
                        "nodes[0] has the wrong type: it takes a string", refusal("{\"nodes\": [[\"gpu1\"]]}")));
    }

    // bodies that are not one JSON object

    @Test
    void malformedJsonSaysWhere() {
        String message = refusal("""
                {
                  "enabled": true
                  "controller": "ctl1"
                }""");
        assertTrue(message.startsWith("the body is not valid JSON (line 3, column 3): "), message);
    }

    @Test
    void unfinishedJsonSaysWhereItOpened() {
        assertEquals(
                "the body is not valid JSON (line 1, column 18): Unexpected end-of-input: expected close marker "
                        + "for Object (opened at line 1, column 1)",
                refusal("{\"enabled\": true "));
    }

    @Test
    void duplicateKeyIsRefusedNamingIt() {
        String top = refusal("{\"enabled\": true, \"enabled\": false}");
        String nested = refusal("{\"shared\": {\"path\": \"/a\", \"path\": \"/b\"}}");
        assertAll(
                () -> assertTrue(top.startsWith("the body is not valid JSON (line 1, column 28): "), top),
                () -> assertTrue(top.contains("'enabled'"), top),
                () -> assertTrue(nested.startsWith("the body is not valid JSON (line 1, column 33): "), nested),
                () -> assertTrue(nested.contains("'path'"), nested));
    }

    @Test
    void trailingContentIsRefused() {
        assertAll(
                () -> assertEquals(
                        "the body is not valid JSON (line 1, column 4): more follows the first value: "
                                + "send one JSON object",
                        refusal("{} {\"enabled\": true}")),
                () -> assertEquals(
                        "the body is not valid JSON (line 2, column 1): more follows the first value: "
                                + "send one JSON object",
                        refusal("{}\n[]")),
                () -> assertTrue(refusal("{} x").startsWith("the body is not valid JSON (line 1, column 4): ")));
    }

    @Test
    void emptyBodyIsRefused() {
        assertAll(
                () -> assertEquals("the body is empty: send the settings as a JSON object", refusal("")),
                () -> assertEquals("the body is empty: send the settings as a JSON object", refusal(" \n\t")));
    }

    @Test
    void bodyMustBeAnObject() {
        assertAll(
                () -> assertEquals(
                        "the body is JSON array, not an object: send the settings as {\"key\": value, …}",
                        refusal("[{\"enabled\": true}]")),
                () -> assertEquals(
                        "the body is JSON string, not an object: send the settings as {\"key\": value, …}",
                        refusal("\"enabled\"")),
                () -> assertEquals(
                        "the body is JSON null, not an object: send the settings as {\"key\": value, …}",
                        refusal("null")),
                () -> assertEquals(
                        "the body is JSON number, not an object: send the settings as {\"key\": value, …}",
                        refusal("1")));
    }

    @Test
    void bodyMustBeUtf8() {
        BadJson e = assertThrows(
                BadJson.class, () -> SettingsJson.readObject(new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'}));
        assertEquals("the body is not UTF-8 text: send the JSON encoded as UTF-8", e.getMessage());
    }

    // RFC 7396 merge patch

    /** RFC 7396 appendix A: target, patch, result. */
    static Stream<Arguments> rfc7396Examples() {
        return Stream.of(
                Arguments.of("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"),
                Arguments.of("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"),
                Arguments.of("{\"a\":\"b\"}", "{\"a\":null}", "{}"),
                Arguments.of("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"),
                Arguments.of("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"),
                Arguments.of("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"),
                Arguments.of("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"),
                Arguments.of("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"),
                Arguments.of("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"),
                Arguments.of("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"),
                Arguments.of("{\"a\":\"foo\"}", "null", "null"),
                Arguments.of("{\"a\":\"foo\"}", "\"bar\"", "\"bar\""),
                Arguments.of("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"),
                Arguments.of("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"),
                Arguments.of("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"));
    }

    @ParameterizedTest(name = "{0} + {1} = {2}")
    @MethodSource("rfc7396Examples")
    void mergePatchFollowsRfc7396(String target, String patch, String result) {
        JsonNode targetNode = json(target);
        JsonNode patchNode = json(patch);

        assertEquals(json(result), SettingsJson.mergePatch(targetNode, patchNode));
        assertEquals(json(target), targetNode, "the target is left as it was");
        assertEquals(json(patch), patchNode, "the patch is left as it was");
    }

    @Test
    void mergePatchSetsNestedKeysAndReplacesLists() {
        JsonNode stored = SettingsJson.STRICT.valueToTree(FULL);
        JsonNode patch =
                json("{\"shared\": {\"server\": \"gpu1\", \"nfs\": null}, \"nodes\": [\"gpu3\"], \"lent\": []}");

        SlurmSettings patched = SettingsJson.toSettings(SettingsJson.mergePatch(stored, patch));

        assertEquals(new SharedStorage("/shared", "", "gpu1"), patched.shared());
        assertEquals(List.of("gpu3"), patched.nodes());
        assertEquals(List.of(), patched.lent());
        assertEquals("ctl1", patched.controller());
    }

    @Test
    void mergePatchNullClearsAKeyToItsDefault() {
        JsonNode stored = SettingsJson.STRICT.valueToTree(FULL);
        JsonNode patch = json("""
                {"cluster_name": null, "nodes": null, "containers": null, "all_nodes": null,
                 "experimental": {"enable_async_reply": null}, "auth": null}""");

        SlurmSettings cleared = SettingsJson.toSettings(SettingsJson.mergePatch(stored, patch));

        assertEquals(
                new SlurmSettings(
                        true,
                        null,
                        "ctl1",
                        null,
                        false,
                        List.of("gpu2"),
                        "train",
                        FULL.shared(),
                        "slurmlet",
                        false,
                        null),
                cleared);
    }

    @Test
    void mergePatchOfTheWrongTypeIsRefusedWhenRead() {
        JsonNode patched =
                SettingsJson.mergePatch(SettingsJson.STRICT.valueToTree(FULL), json("{\"shared\": \"/data\"}"));

        BadJson e = assertThrows(BadJson.class, () -> SettingsJson.toSettings(patched));
        assertEquals("shared has the wrong type: it takes an object", e.getMessage());
    }

    private static SlurmSettings read(String json) {
        return SettingsJson.toSettings(SettingsJson.readObject(json.getBytes(StandardCharsets.UTF_8)));
    }

    /** The message a body is refused with, whether reading it as JSON or as settings refused it. */
    private static String refusal(String json) {
        return assertThrows(BadJson.class, () -> read(json), json).getMessage();
    }

    private static JsonNode json(String text) {
        try {
            return SettingsJson.STRICT.readTree(text);
        } catch (JsonProcessingException e) {
            throw new AssertionError(text, e);
        }
    }

    /** A machine's report read straight (SettingsJson.read) is refused as a tree then a value would be, with the same words. */
    @ParameterizedTest
    @MethodSource("badReports")
    void aReportReadStraightIsRefusedAsThroughATree(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        BadJson straight = assertThrows(BadJson.class, () -> SettingsJson.read(bytes, NodeReport.class));
        BadJson tree = assertThrows(
                BadJson.class, () -> SettingsJson.toValue(SettingsJson.readObject(bytes), NodeReport.class));
        assertEquals(tree.getMessage(), straight.getMessage());
    }

    static Stream<String> badReports() {
        return Stream.of(
                "{\"node\": \"n1\", \"plan_revision\": 1, \"steps\": [], \"colour\": 1}",
                "{\"node\": \"n1\", \"plan_revision\": \"one\", \"steps\": []}",
                "{\"node\": \"n1\", \"plan_revision\": 1, \"steps\": [{\"step\": 1, \"state\": []}]}",
                "{\"node\": \"n1\", \"plan_revision\": 1,",
                "{\"node\": \"n1\", \"node\": \"n2\"}",
                "{\"node\": \"n1\"} {\"node\": \"n2\"}");
    }

    @Test
    void aReportThatIsNotAnObjectOrNotUtf8SaysSo() {
        assertEquals(
                "the body is JSON array, not an object: send {\"key\": value, …}",
                assertThrows(
                                BadJson.class,
                                () -> SettingsJson.read("[1]".getBytes(StandardCharsets.UTF_8), NodeReport.class))
                        .getMessage());
        assertEquals(
                "the body is empty: send a JSON object",
                assertThrows(
                                BadJson.class,
                                () -> SettingsJson.read(" ".getBytes(StandardCharsets.UTF_8), NodeReport.class))
                        .getMessage());
        assertEquals(
                "the body is not UTF-8 text: send the JSON encoded as UTF-8",
                assertThrows(
                                BadJson.class,
                                () -> SettingsJson.read(new byte[] {'{', (byte) 0xff, '}'}, NodeReport.class))
                        .getMessage());
        NodeReport ok = SettingsJson.read(
                "{\"node\": \"n1\", \"plan_revision\": 7, \"steps\": []}".getBytes(StandardCharsets.UTF_8),
                NodeReport.class);
        assertEquals("n1", ok.node());
        assertEquals(7, ok.planRevision());
    }
}
