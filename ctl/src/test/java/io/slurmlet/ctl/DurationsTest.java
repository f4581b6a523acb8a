package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @Test
    void readsTheFormsAPersonTypes() {
        assertEquals(Duration.ofSeconds(30), Durations.parse("30s"));
        assertEquals(Duration.ofMinutes(5), Durations.parse("5m"));
        assertEquals(Duration.ofHours(1), Durations.parse("1h"));
        assertEquals(Duration.ofMinutes(90), Durations.parse("1h30m"));
        assertEquals(Duration.ofMillis(300), Durations.parse("300ms"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10", "10x", "m", "5 m", "-5m", "5m3", "1.5h", "0s"})
    void refusesAnythingElse(String text) {
        assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
    }

    @Test
    void showsADurationAsItIsTyped() {
        assertEquals("10m", Durations.shown(Duration.ofMinutes(10)));
        assertEquals("1h30m", Durations.shown(Duration.ofMinutes(90)));
        assertEquals("300ms", Durations.shown(Duration.ofMillis(300)));
    }
}
