package io.slurmlet.model.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slurmlet.model.api.SettingsPreview.Action;
import io.slurmlet.model.api.SettingsPreview.Change;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON a dry run is answered with: snake_case keys, lower-case words, as every API type. */
class SettingsPreviewTest {

    @Test
    void keysAndWordsAreAsTheApiWritesThem() throws JsonProcessingException {
        SettingsPreview preview = new SettingsPreview(
                7,
                true,
                SlurmSettings.DEFAULTS,
                List.of(new NodeChange(
                        "n1",
                        List.of(),
                        List.of("slurmd"),
                        List.of(new FileChange("/etc/munge/munge.key", Change.CREATED, null)),
                        List.of(new DaemonChange("slurmd", Action.RESTART, "why")))),
                null,
                null);

        String json = SettingsJson.STRICT.writeValueAsString(preview);

        assertTrue(
                json.contains(
                        "\"nodes\":[{\"node\":\"n1\",\"roles_before\":[],\"roles_after\":[\"slurmd\"],"
                                + "\"files\":[{\"path\":\"/etc/munge/munge.key\",\"change\":\"created\",\"diff\":null}],"
                                + "\"daemons\":[{\"unit\":\"slurmd\",\"action\":\"restart\",\"why\":\"why\"}],\"actions\":[]}]"),
                json);
        assertTrue(json.startsWith("{\"revision\":7,\"changed\":true,\"settings\":{"), json);
        assertTrue(json.endsWith(",\"problems\":[],\"notes\":[]}"), json);
        assertEquals(preview, SettingsJson.STRICT.readValue(json, SettingsPreview.class));
    }
}
