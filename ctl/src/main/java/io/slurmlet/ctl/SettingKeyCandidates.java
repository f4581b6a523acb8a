package io.slurmlet.ctl;

import io.slurmlet.model.settings.SettingKey;
import java.util.Arrays;
import java.util.Iterator;

/** The keys of {@code ctl slurm set}, for its help and for bash completion. */
public class SettingKeyCandidates implements Iterable<String> {

    @Override
    public Iterator<String> iterator() {
        return Arrays.stream(SettingKey.values())
                .map(k -> k.kind() == SettingKey.Kind.MAP ? SettingKey.SLURM_CONF_PREFIX : k.key())
                .iterator();
    }
}
