package io.slurmlet.model.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlurmJwksTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theFileIsSlurmsJwksWithTheKeyThatSignsMarkedDefault() throws Exception {
        SlurmJwks keys = SlurmJwks.first("k1").withNewKey("k2");
        JsonNode file = JSON.readTree(keys.text());
        assertEquals(2, file.path("keys").size());
        JsonNode k1 = file.path("keys").get(0);
        assertEquals("k1", k1.path("kid").asText());
        assertEquals("oct", k1.path("kty").asText());
        assertEquals("HS256", k1.path("alg").asText());
        assertEquals("default", k1.path("use").asText());
        assertEquals(SlurmJwks.BYTES, Base64.getDecoder().decode(k1.path("k").asText()).length);
        assertFalse(file.path("keys").get(1).has("use"), "the new key signs nothing yet");
        assertTrue(keys.text().endsWith("}\n"));
        assertEquals(keys, SlurmJwks.of(keys.text()), "read back as written");
    }

    @Test
    void aRotationAddsAKeyThenSignsWithItThenDropsTheOld() {
        SlurmJwks first = SlurmJwks.first("k1");
        SlurmJwks added = first.withNewKey("k2");
        assertEquals(List.of("k1", "k2"), added.kids());
        assertEquals("k1", added.signing());
        SlurmJwks switched = added.signingWith("k2");
        assertEquals("k2", switched.signing());
        SlurmJwks dropped = switched.without("k1");
        assertEquals(List.of("k2"), dropped.kids());
        assertEquals(
                SlurmJwks.of(added.text()).text().replace(",\"use\":\"default\"", ""),
                SlurmJwks.of(switched.text()).text().replace(",\"use\":\"default\"", ""),
                "the same two keys, only the one that signs moved");
        IllegalArgumentException signs = assertThrows(IllegalArgumentException.class, () -> added.without("k1"));
        assertEquals("slurm.jwks key k1 signs: make another sign, everywhere, before dropping it", signs.getMessage());
        assertThrows(IllegalArgumentException.class, () -> added.withNewKey("k1"), "a kid twice");
        assertThrows(IllegalArgumentException.class, () -> added.signingWith("k9"), "a key it does not hold");
        assertThrows(IllegalArgumentException.class, () -> first.withNewKey("k\"2"), "a kid JSON would escape");
    }

    @Test
    void aFileSlurmWouldRefuseIsRefusedNamingTheKidNeverTheKey() {
        String k16 = Base64.getEncoder().encodeToString(new byte[16]);
        String k8 = Base64.getEncoder().encodeToString(new byte[8]);
        String one = "{\"kid\":\"%s\",\"kty\":\"oct\",\"alg\":\"HS256\",\"k\":\"%s\"%s}";
        List<String> refused = List.of(
                "not json",
                "{\"keys\":[]}",
                "{\"keys\":[" + one.formatted("a", k16, "") + "]}", // no key signs
                "{\"keys\":[" + one.formatted("a", k16, ",\"use\":\"default\"") + ","
                        + one.formatted("b", k16, ",\"use\":\"default\"") + "]}", // two sign: Slurm's own fatal
                "{\"keys\":[" + one.formatted("a", k16, ",\"use\":\"default\"") + "," + one.formatted("a", k16, "")
                        + "]}", // a kid twice
                "{\"keys\":[" + one.formatted("a", k8, ",\"use\":\"default\"") + "]}", // too short
                "{\"keys\":[{\"kid\":\"a\",\"kty\":\"RSA\",\"alg\":\"RS256\",\"k\":\"" + k16
                        + "\",\"use\":\"default\"}]}",
                "{\"keys\":[" + one.formatted("a", k16, ",\"use\":\"default\",\"exp\":1") + "]}",
                "{\"keys\":[" + one.formatted("a", "%%%", ",\"use\":\"default\"") + "]}",
                "{\"keys\":[" + one.formatted("a", k16, ",\"use\":\"default\"") + "],\"more\":1}");
        for (String text : refused) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmJwks.of(text), text);
            assertTrue(e.getMessage().startsWith("slurm.jwks"), e.getMessage());
            assertFalse(e.getMessage().contains(k16) || e.getMessage().contains(k8), e.getMessage());
        }
        assertEquals(
                List.of("a"),
                SlurmJwks.of("{\"keys\":[" + one.formatted("a", k16, ",\"use\":\"default\"") + "]}")
                        .kids());
    }

    @Test
    void noKeyIsEverShown() throws Exception {
        SlurmJwks keys = SlurmJwks.first("k1").withNewKey("k2");
        String k = JSON.readTree(keys.text()).path("keys").get(0).path("k").asText();
        assertEquals("SlurmJwks[kids [k1, k2], k1 signs, keys not shown]", keys.toString());
        assertFalse(keys.toString().contains(k));
    }

    @Test
    void inAPlanItIsTheFilesText() throws Exception {
        SlurmJwks keys = SlurmJwks.first("k1");
        String json = JSON.writeValueAsString(keys);
        assertEquals(JSON.writeValueAsString(keys.text()), json);
        assertEquals(keys, JSON.readValue(json, SlurmJwks.class));
    }
}
