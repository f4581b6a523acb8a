package io.slurmlet.model.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TextTest {

    @Test
    void textThatCannotBeStoredOrShownAsSentIsNamed() {
        assertEquals(Optional.of("holds a line break at character 2"), Text.unsafe("a\nb"));
        assertEquals(Optional.of("holds the control character U+0000 at character 2"), Text.unsafe("a\u0000"));
        assertEquals(
                Optional.of("holds half of a UTF-16 surrogate pair (U+D800), which is not a character at character 2"),
                Text.unsafe("a\ud800"));
        assertTrue(Text.unsafe("\udc00\ud800").isPresent(), "halves in the wrong order");
        assertTrue(Text.unsafe("\u202eevil").get().contains("bidirectional"));
        assertTrue(Text.unsafe("a\u2029").isPresent());
        assertTrue(Text.unsafe("\ufeff").isPresent());
        assertEquals(Optional.empty(), Text.unsafe("Zoë 😀 日本"), "letters of any script and whole pairs are text");
    }

    @Test
    void anErrorShowsAValueOnOneLineAsItWasSent() {
        assertEquals("\"a\\\"b\\\\c\\u000a\\ud800\\u202e é\"", Text.quote("a\"b\\c\n\ud800\u202e é"));
    }

    @Test
    void whatAMachineReportsIsShownOnOneLineThatMovesNoCursor() {
        assertEquals(
                "mount failed | \\u001b[2J\\u001b[Hall good | x y",
                Text.oneLine("mount failed\r\n\u001b[2J\u001b[Hall good\nx\ty"));
        assertEquals("\\u202eevil 😀", Text.oneLine("\u202eevil 😀"));
        assertEquals(Text.ONE_LINE_MAX, Text.oneLine("x".repeat(10_000)).length());
    }
}
