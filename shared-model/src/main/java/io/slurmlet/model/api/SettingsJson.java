package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The one strict reading of settings JSON: unknown keys, wrong types, duplicate keys, trailing
 * garbage and bad UTF-8 are refused with a message a person can act on, naming the key.
 */
public final class SettingsJson {

    /**
     * Refuses anything but exactly the settings' shape. A missing or null key takes its default, as
     * a merge patch's null does (a boolean's is false); a number or boolean is not a string, and a
     * list holds no nulls.
     */
    public static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .withCoercionConfig(
                    LogicalType.Textual,
                    c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .defaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL))
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** Reads a body's tree or value; {@link #readObject} and {@link #read} say themselves what follows the first value. */
    private static final ObjectReader TREE = STRICT.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private SettingsJson() {}

    /** A request body that is not settings: {@link #getMessage()} says why, for a person. */
    public static final class BadJson extends RuntimeException {
        public BadJson(String message) {
            super(message, null, false, false);
        }
    }

    /** Decodes a body as UTF-8, refusing bytes that are not. */
    public static String utf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new BadJson("the body is not UTF-8 text: send the JSON encoded as UTF-8");
        }
    }

    /** Reads a JSON object (settings or a merge patch) from a body. */
    public static ObjectNode readObject(byte[] body) {
        String text = utf8(body);
        if (text.isBlank()) {
            throw new BadJson("the body is empty: send the settings as a JSON object");
        }
        JsonNode node;
        try (JsonParser parser = STRICT.createParser(text)) {
            node = TREE.readTree(parser);
            nothingMore(parser);
        } catch (IOException e) {
            throw explain(e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new BadJson("the body is JSON %s, not an object: send the settings as {\"key\": value, …}"
                    .formatted(
                            node == null
                                    ? "nothing"
                                    : node.getNodeType().toString().toLowerCase()));
        }
        return object;
    }

    /**
     * Reads a JSON object of {@code type} from a body in one pass, with no tree between (a
     * machine's report: ten thousand of them a change at site scale): the checks of
     * {@link #readObject} then {@link #toValue}, and their messages.
     */
    public static <T> T read(byte[] body, Class<T> type) {
        String text = utf8(body);
        if (text.isBlank()) {
            throw new BadJson("the body is empty: send a JSON object");
        }
        try (JsonParser parser = STRICT.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new BadJson(
                        "the body is JSON %s, not an object: send {\"key\": value, …}".formatted(kind(first)));
            }
            T value = TREE.forType(type).readValue(parser);
            nothingMore(parser);
            return value;
        } catch (IOException | IllegalArgumentException e) {
            throw explain(e);
        }
    }

    /** Refuses a body with more after its first value. */
    private static void nothingMore(JsonParser parser) throws IOException {
        if (parser.nextToken() != null) {
            var loc = parser.currentTokenLocation();
            throw new BadJson(
                    "the body is not valid JSON (line %d, column %d): more follows the first value: send one JSON object"
                            .formatted(loc.getLineNr(), loc.getColumnNr()));
        }
    }

    private static String kind(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case START_ARRAY -> "array";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            default -> token.asString() == null ? token.name().toLowerCase() : token.asString();
        };
    }

    /**
     * {@code value} as indented JSON ending in a newline, as the leader keeps its state files. Text
     * that UTF-8 cannot hold (half of a surrogate pair) is refused, never written as {@code ?}: a
     * state file holds exactly what was acknowledged, or is not written.
     */
    public static byte[] pretty(Object value) {
        String json;
        try {
            json = STRICT.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(json));
            byte[] out = new byte[bytes.remaining()];
            bytes.get(out);
            return out;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(
                    "cannot write " + value.getClass().getSimpleName()
                            + " as UTF-8: it holds half of a surrogate pair, which is not a character",
                    e);
        }
    }

    /** Turns a JSON object into {@code type}, refusing unknown keys and wrong types, naming the key. */
    public static <T> T toValue(JsonNode node, Class<T> type) {
        try {
            return STRICT.treeToValue(node, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw explain(e);
        }
    }

    /** Turns a JSON object into settings, refusing unknown keys and wrong types. */
    public static SlurmSettings toSettings(JsonNode node) {
        try {
            return STRICT.treeToValue(node, SlurmSettings.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw explain(e);
        }
    }

    /** RFC 7396 JSON merge patch: {@code patch}'s members replace {@code target}'s; null removes one. */
    public static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result =
                target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : STRICT.createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> member = it.next();
            if (member.getValue().isNull()) {
                result.remove(member.getKey());
            } else {
                result.set(member.getKey(), mergePatch(result.get(member.getKey()), member.getValue()));
            }
        }
        return result;
    }

    private static BadJson explain(Exception e) {
        if (e instanceof UnrecognizedPropertyException u) {
            String where = parent(u);
            Collection<Object> known = u.getKnownPropertyIds();
            return new BadJson("unknown key %s: the keys there are %s"
                    .formatted(
                            quoteKey(where, u.getPropertyName()),
                            known.stream().map(Object::toString).sorted().collect(Collectors.joining(", "))));
        }
        if (e instanceof MismatchedInputException m && !m.getPath().isEmpty()) {
            return new BadJson("%s has the wrong type: it takes %s".formatted(path(m), expected(m.getTargetType())));
        }
        if (e instanceof JsonParseException p) {
            var loc = p.getLocation();
            String why = p.getOriginalMessage()
                    .split("\n")[0]
                    .replaceAll(
                            " \\(start marker at \\[Source: [^;]*; line: (\\d+), column: (\\d+)]\\)",
                            " (opened at line $1, column $2)");
            return new BadJson("the body is not valid JSON (line %d, column %d): %s"
                    .formatted(loc.getLineNr(), loc.getColumnNr(), why));
        }
        if (e instanceof JsonMappingException m && m.getCause() instanceof IllegalArgumentException cause) {
            return new BadJson(cause.getMessage());
        }
        if (e instanceof JsonProcessingException p) {
            return new BadJson("the body is not valid settings JSON: "
                    + p.getOriginalMessage().split("\n")[0]);
        }
        return new BadJson("the body is not valid settings JSON: " + e.getMessage());
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "another type";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list of strings, as [\"n1\", \"n2\"]";
        }
        return "an object";
    }

    /** The dotted key of where a mapping error happened: {@code shared.path}, {@code nodes[2]}. */
    private static String path(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (!b.isEmpty()) {
                    b.append('.');
                }
                b.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                b.append('[').append(ref.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    private static String parent(UnrecognizedPropertyException u) {
        String full = path(u);
        int dot = full.lastIndexOf('.');
        return dot < 0 ? "" : full.substring(0, dot);
    }

    private static String quoteKey(String parent, String name) {
        return "\"" + (parent.isEmpty() ? "" : parent + ".") + name + "\"";
    }

    /** Used by readers that must tolerate fields a newer leader adds (ctl reading answers). */
    public static ObjectMapper lenient() {
        return JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }
}
